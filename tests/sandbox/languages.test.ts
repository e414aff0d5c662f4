/**
 * Languages c, cpp and python (docs/DOMAIN.md): compile and run inside the bwrap sandbox, compile errors
 * come back trimmed and without box paths, library files are compiled beside the source.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compile, getLanguage, run, type CompiledProgram } from '@otog/judge/languages/index';
import type { SandboxSlot } from '@otog/judge/sandbox/index';
import { livingProcessesOf, startTestSandbox, type TestSandbox } from './support.ts';

const firstUid = 61120;
let env: TestSandbox;
let slot: SandboxSlot;
let input: string;

beforeAll(async () => {
  env = await startTestSandbox('languages', firstUid, { slots: 2 });
  slot = await env.sandbox.acquire();
  input = join(env.tmp, '1.in');
  writeFileSync(input, '1000000000 2345\n');
}, 180_000);

afterAll(async () => {
  if (!env) return;
  env.sandbox.release(slot);
  await env.close();
}, 180_000);

afterEach(() => {
  expect(livingProcessesOf(env.uids)).toEqual([]);
});

function source(name: string, text: string): string {
  const path = join(env.tmp, name);
  writeFileSync(path, text);
  return path;
}

async function compileOk(language: string, file: string, libraries: string[] = []): Promise<CompiledProgram> {
  const result = await compile(getLanguage(language), file, libraries, slot, { outDir: join(env.tmp, `program-${language}`) });
  if (!result.ok) throw new Error(`compile failed (${result.reason}): ${result.message}`);
  expect(result.sandbox.status).toBe('ok');
  return result.program;
}

const problem = { timeLimitMs: 1000, memoryLimitMB: 256 };

describe('languages in the sandbox', () => {
  it('C a+b compiles (static) and runs', async () => {
    const program = await compileOk('c', source('ab.c', '#include <stdio.h>\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",a+b);return 0;}\n'));
    expect(program.files).toEqual(['main']);
    const result = await run(program, slot, { stdinFile: input, problem });
    expect(result.status).toBe('ok');
    expect(readFileSync(result.stdoutFile, 'utf8')).toBe('1000002345\n');
    expect(result.timeMs).toBe(result.cpuMs);
  });

  it('C++17 a+b compiles and runs', async () => {
    const program = await compileOk(
      'cpp',
      source('ab.cpp', '#include <bits/stdc++.h>\nint main(){auto [a,b]=std::pair<long long,long long>{};std::cin>>a>>b;std::cout<<a+b<<"\\n";}\n'),
    );
    const result = await run(program, slot, { stdinFile: input, problem });
    expect(result.status).toBe('ok');
    expect(readFileSync(result.stdoutFile, 'utf8')).toBe('1000002345\n');
  });

  it('Python a+b runs with /usr/bin/python3 and the time factor 5', async () => {
    const program = await compileOk('python', source('ab.py', 'a, b = map(int, input().split())\nprint(a + b)\n'));
    expect(program.argv[0]).toBe('/usr/bin/python3');
    const result = await run(program, slot, { stdinFile: input, problem });
    expect(result.status).toBe('ok');
    expect(readFileSync(result.stdoutFile, 'utf8')).toBe('1000002345\n');
    expect(result.timeMs).toBeCloseTo(result.cpuMs / 5, 2);
  });

  it('library files are copied beside the source and compiled with it', async () => {
    const header = source('add.h', 'long long add(long long a, long long b);\n');
    const grader = source('grader.cpp', '#include <cstdio>\n#include "add.h"\nint main(){long long a,b;std::scanf("%lld %lld",&a,&b);std::printf("%lld\\n",add(a,b));}\n');
    const program = await compileOk('cpp', source('solution.cpp', '#include "add.h"\nlong long add(long long a, long long b){return a+b;}\n'), [header, grader]);
    const result = await run(program, slot, { stdinFile: input, problem });
    expect(readFileSync(result.stdoutFile, 'utf8')).toBe('1000002345\n');
  });

  it('a compile error returns a trimmed message without box paths', async () => {
    const body = Array.from({ length: 400 }, (_unused, index) => `  undeclared_${index} = ${index};`).join('\n');
    const result = await compile(getLanguage('cpp'), source('broken.cpp', `int main() {\n${body}\n}\n`), [], slot);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toBe('error');
    const lines = result.message.split('\n');
    expect(lines.length).toBe(301);
    expect(lines[300]).toMatch(/^and \d+ more lines\.\.\.$/);
    expect(result.message).toMatch(/^main\.cpp:2:3: error: .undeclared_0. was not declared in this scope$/m);
    expect(result.message).not.toContain('/box');
    expect(result.message).not.toContain(slot.boxDir);
  });

  it('a Python syntax error is a compile error', async () => {
    const result = await compile(getLanguage('python'), source('broken.py', 'print(1 +\n'), [], slot);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toBe('error');
    expect(result.message).toMatch(/SyntaxError/);
    expect(result.message).not.toContain('/box');
  });

  it('slots run in parallel, each as its own uid with its own box', async () => {
    const other = await env.sandbox.acquire();
    try {
      const limits = { cpuMs: 2000, wallMs: 20_000, memoryKiB: 64 * 1024, processes: 8, outputBytes: 1 << 20 };
      const runIn = async (target: SandboxSlot) => {
        await target.resetBox();
        await target.addFile(`marker-${target.index}`, { content: '' });
        await target.addFile('who.sh', { content: 'id -u\nls /box\n' });
        return target.run({ argv: ['/bin/sh', 'who.sh'], limits });
      };
      const [first, second] = await Promise.all([runIn(slot), runIn(other)]);
      expect(other.uid).toBe(firstUid + 1);
      expect(other.boxDir).not.toBe(slot.boxDir);
      expect(readFileSync(first!.stdoutFile, 'utf8')).toBe(`${slot.uid}\nmarker-${slot.index}\nwho.sh\n`);
      expect(readFileSync(second!.stdoutFile, 'utf8')).toBe(`${other.uid}\nmarker-${other.index}\nwho.sh\n`);
    } finally {
      env.sandbox.release(other);
    }
  });

  it('runtime errors, TLE and MLE of a submission', async () => {
    const crash = await compileOk('c', source('crash.c', 'int main(void){volatile int *p = 0; return *p;}\n'));
    expect((await run(crash, slot, { problem })).status).toBe('re');
    const loop = await compileOk('python', source('loop.py', 'while True:\n    pass\n'));
    const tle = await run(loop, slot, { problem: { timeLimitMs: 200, memoryLimitMB: 64 } });
    expect(tle.status).toBe('tle');
    // CPU limit = 200 ms × 5; reported time = CPU ÷ 5.
    expect(tle.cpuMs).toBeGreaterThanOrEqual(1000);
    expect(tle.timeMs).toBeGreaterThanOrEqual(200);
    const hog = await compileOk('python', source('hog.py', 'x = bytearray(200 * 1024 * 1024)\nprint(len(x))\n'));
    const mle = await run(hog, slot, { problem: { timeLimitMs: 1000, memoryLimitMB: 64 } });
    expect(mle.status).toBe('mle');
    expect(mle.memoryExceeded).toBe(true);
  });
});
