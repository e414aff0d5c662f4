/**
 * Robustness of judgeSubmission: every way a submission, a package, a checker or the sandbox can go
 * wrong ends with DOMAIN.md's special result, status and a message, and never throws. Checkers run in the
 * sandbox with their own (here small) limits. The contestant's program can never read a .sol file.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeSubmission, wallKillBudget, type JudgeSubmissionInput } from '@otog/judge/pipeline/judge-submission';
import { checkerLimits } from '@otog/judge/languages/index';
import type { RunResult, Sandbox, SandboxSlot } from '@otog/judge/sandbox/index';
import type { TestOutcome } from '@otog/schemas/common/judging';
import { livingProcessesOf, startTestSandbox, type TestSandbox } from '../sandbox/support.ts';
import { aplusbFiles, sandboxTmp, writeProblem } from './support.ts';

const firstUid = 61210;
let env: TestSandbox;
let tmp: string;
let counter = 0;

const AC_C = '#include <stdio.h>\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",a+b);return 0;}\n';
const AC_PY = 'a, b = map(int, input().split())\nprint(a + b)\n';
/** Small checker limits so a hanging checker costs seconds, not a minute. */
const smallCheckerLimits = { ...checkerLimits, cpuMs: 1500, wallMs: 2500 };

beforeAll(async () => {
  env = await startTestSandbox('judge-robustness', firstUid, { slots: 1 });
  tmp = sandboxTmp('judge-robustness');
}, 180_000);

afterAll(async () => {
  await env?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, 60_000);

function problem(files: Record<string, string>): string {
  counter += 1;
  return writeProblem(tmp, `p${counter}`, files);
}

async function judge(overrides: Partial<JudgeSubmissionInput> & { problemDir: string }, reported: Array<[number, TestOutcome]> = []) {
  return judgeSubmission({
    language: 'c',
    sourceCode: AC_C,
    limits: { timeLimit: 1000, memoryLimit: 256, score: 100 },
    contest: false,
    sandbox: env.sandbox,
    checkerLimits: smallCheckerLimits,
    onTestcase: (testNumber, outcome) => void reported.push([testNumber, outcome]),
    ...overrides,
  });
}

describe('packages and submissions', () => {
  it('an unknown language ends as Judge Error (judgeError) naming the known ones', async () => {
    const result = await judge({ problemDir: problem(aplusbFiles(2)), language: 'java' });
    expect(result).toMatchObject({ status: 'judgeError', result: 'Judge Error', score: 0, subtaskResults: [] });
    expect(result.errmsg).toContain('Unknown language "java"');
    expect(result.errmsg).toContain('c, cpp, python');
  });

  it('no test files: No Testcase', async () => {
    expect(await judge({ problemDir: problem({ 'README.md': 'nothing here\n' }) })).toMatchObject({ status: 'judgeError', result: 'No Testcase' });
  });

  it('a folder that does not exist: No Testcase', async () => {
    expect(await judge({ problemDir: `${tmp}/does-not-exist` })).toMatchObject({ status: 'judgeError', result: 'No Testcase' });
  });

  it('problem.case larger than the inputs: Input missing, naming the files', async () => {
    const result = await judge({ problemDir: problem(aplusbFiles(2)), problemCase: '4' });
    expect(result).toMatchObject({ status: 'judgeError', result: 'Input missing' });
    expect(result.errmsg).toContain('3.in, 4.in');
  });

  it('a missing .sol with the standard checker: Solution missing', async () => {
    const files = aplusbFiles(3);
    delete files['2.sol'];
    const result = await judge({ problemDir: problem(files) });
    expect(result).toMatchObject({ status: 'judgeError', result: 'Solution missing', score: 0 });
    expect(result.errmsg).toContain('2.sol');
  });

  it.each([
    ['not JSON', '{"version": 1.0, "data": {'],
    ['a require cycle', JSON.stringify({ version: 1, data: { 'subtask 1': { case: '1', require: 2 }, 'subtask 2': { case: '2', require: 1 } } })],
    ['a case out of range', JSON.stringify({ version: 1, data: { 'subtask 1': { case: '1-9' } } })],
  ])('invalid subtask.json (%s): Subtask Error with the reason', async (_name, text) => {
    const result = await judge({ problemDir: problem({ ...aplusbFiles(2), 'subtask.json': text }) });
    expect(result).toMatchObject({ status: 'judgeError', result: 'Subtask Error', score: 0 });
    expect(result.errmsg?.length).toBeGreaterThan(0);
  });

  it('problem.case given by the task wins over the files present', async () => {
    const reported: Array<[number, TestOutcome]> = [];
    const result = await judge({ problemDir: problem(aplusbFiles(5)), problemCase: '3' }, reported);
    expect(result).toMatchObject({ status: 'accept', result: 'PPP' });
    expect(reported.map(([testNumber]) => testNumber)).toEqual([1, 2, 3]);
  });

  it('library files (header and grader) are compiled beside the source', async () => {
    const dir = problem({
      ...aplusbFiles(2),
      'sum.h': 'long long sum(long long a, long long b);\n',
      'grader.c': '#include <stdio.h>\n#include "sum.h"\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",sum(a,b));return 0;}\n',
    });
    const result = await judge({ problemDir: dir, sourceCode: '#include "sum.h"\nlong long sum(long long a, long long b){return a+b;}\n' });
    expect(result).toMatchObject({ status: 'accept', result: 'PP' });
  });

  it('an aborted judging rejects with the reason between tests', async () => {
    const controller = new AbortController();
    const reason = new Error('lease lost');
    const promise = judge({ problemDir: problem(aplusbFiles(3)), signal: controller.signal }, []);
    controller.abort(reason);
    await expect(promise).rejects.toBe(reason);
  });
});

describe('checkers that fail: Problem Error (judgeError) for the whole submission', () => {
  const thaco = (body: string) => `#include <cstdio>\n#include <cstdlib>\nint main(int argc, char** argv) {\n${body}\n}\n`;

  it.each([
    ['thaco.cpp exits 1', { 'thaco.cpp': thaco('return 1;') }, /thaco\.cpp exited with code 1/],
    ['thaco.cpp prints something that is not a number', { 'thaco.cpp': thaco('std::puts("NOICE"); return 0;') }, /must print one number/],
    ['thaco.cpp does not compile', { 'thaco.cpp': thaco('this is not C++;') }, /does not compile/],
    ['thaco.cpp crashes (SIGSEGV)', { 'thaco.cpp': thaco('volatile int* p = nullptr; *p = 1; return 0;') }, /killed by SIGSEGV/],
    ['check.cpp writes no grader_result.txt', { 'check.cpp': thaco('return 0;') }, /did not write grader_result\.txt/],
    ['check.cpp writes two characters', { 'check.cpp': '#include <fstream>\nint main(){ std::ofstream("grader_result.txt") << "PP"; }\n' }, /exactly one character/],
    ['interactive_script.py prints two lines', { 'interactive_script.py': 'print("P")\nprint("P")\n' }, /exactly one character/],
    ['interactive_script.py prints nothing', { 'interactive_script.py': 'pass\n' }, /exactly one character/],
    ['interactive_script.py raises', { 'interactive_script.py': 'raise SystemExit(3)\n' }, /exited with code 3/],
  ] as const)('%s', async (_name, checker: Record<string, string>, message) => {
    const reported: Array<[number, TestOutcome]> = [];
    const result = await judge({ problemDir: problem({ ...aplusbFiles(3), ...checker }) }, reported);
    expect(result).toMatchObject({ status: 'judgeError', result: 'Problem Error', score: 0, subtaskResults: [] });
    expect(result.errmsg).toMatch(message);
    expect(livingProcessesOf(env.uids)).toEqual([]);
  });

  it('a checker that hangs (CPU) is stopped at its own limit', async () => {
    const started = Date.now();
    const result = await judge({ problemDir: problem({ ...aplusbFiles(3), 'interactive_script.py': 'while True:\n    pass\n' }) });
    expect(result).toMatchObject({ status: 'judgeError', result: 'Problem Error' });
    expect(result.errmsg).toMatch(/exceeded its CPU time limit of 1\.5 s/);
    // The first test's checker aborts the submission: one checker run, not three.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a checker that sleeps forever is stopped at its wall-clock limit', async () => {
    const result = await judge({ problemDir: problem({ ...aplusbFiles(2), 'thaco.cpp': '#include <unistd.h>\nint main(){ for(;;) sleep(100); }\n' }) });
    expect(result).toMatchObject({ status: 'judgeError', result: 'Problem Error' });
    expect(result.errmsg).toMatch(/did not finish within 2\.5 s/);
    expect(livingProcessesOf(env.uids)).toEqual([]);
  });

  it('a program that sleeps is cut off after its third wall-clock kill: the remaining tests are TLE without running', async () => {
    // 8 tests at 200 ms CPU: each sleeping run lasts its 1.4 s wall limit; 3 such runs are allowed.
    expect([wallKillBudget(8), wallKillBudget(10), wallKillBudget(99)]).toEqual([3, 4, 12]);
    const reported: Array<[number, TestOutcome]> = [];
    const reportedAt: number[] = [];
    const started = Date.now();
    const result = await judge(
      {
        problemDir: problem(aplusbFiles(8)),
        sourceCode: '#include <unistd.h>\nint main(void){ for(;;) sleep(100); }\n',
        limits: { timeLimit: 200, memoryLimit: 256, score: 100 },
        onTestcase: (testNumber, outcome) => {
          reported.push([testNumber, outcome]);
          reportedAt.push(Date.now());
        },
      },
      reported,
    );
    expect(result).toMatchObject({ status: 'reject', result: 'TTTTTTTT', score: 0 });
    expect(reported.map(([testNumber, outcome]) => [testNumber, outcome.status])).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, 'TIME_LIMIT_EXCEEDED']));
    // Tests that ran took their 1.4 s wall limit; the ones past the budget were reported at once.
    const ran = reportedAt.filter((at, index) => at - (index === 0 ? started : reportedAt[index - 1]!) > 700).length;
    expect(ran).toBe(3);
  });

  it('the checker runs in the sandbox: it cannot write to the problem folder or reach the network', async () => {
    const script = [
      'import socket, sys',
      'problem = sys.argv[2]',
      'try:',
      '    open(problem + "1.sol", "w").write("hacked")',
      '    print("W"); sys.exit(0)',
      'except OSError:',
      '    pass',
      'try:',
      '    socket.create_connection(("1.1.1.1", 53), timeout=1)',
      '    print("W"); sys.exit(0)',
      'except OSError:',
      '    pass',
      'print("P")',
    ].join('\n');
    const result = await judge({ problemDir: problem({ ...aplusbFiles(2), 'interactive_script.py': `${script}\n` }) });
    expect(result).toMatchObject({ status: 'accept', result: 'PP' });
  });
});

describe('the contestant never sees the answers', () => {
  const leakC = (dir: string) => `
#include <stdio.h>
#include <dirent.h>
static int leaked(const char *path) { FILE *f = fopen(path, "r"); if (!f) return 0; fclose(f); return 1; }
int main(void) {
  const char *paths[] = { "1.sol", "2.sol", "./1.sol", "../1.sol", "/problem/1.sol", "/problem/2.sol", "/box/1.sol",
                          "${dir}/1.sol", "${dir}/2.sol", "${dir}/1.in", "/tmp/1.sol" };
  for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++) if (leaked(paths[i])) { printf("LEAK %s\\n", paths[i]); return 0; }
  DIR *box = opendir("."); struct dirent *entry; int files = 0;
  while (box && (entry = readdir(box))) if (entry->d_name[0] != '.') files++;
  if (files > 1) { printf("LEAK %d files in the box\\n", files); return 0; }
  if (freopen("1.sol", "w", stderr)) fputs("overwritten", stderr);
  long long a, b; if (scanf("%lld %lld", &a, &b) != 2) return 1;
  printf("%lld\\n", a + b);
  return 0;
}
`;
  const leakPy = (dir: string) => `
import os
for path in ["1.sol", "../1.sol", "/problem/1.sol", "${dir}/1.sol", "${dir}/2.in"]:
    try:
        open(path).read()
        print("LEAK", path)
        raise SystemExit(0)
    except OSError:
        pass
if os.path.exists("${dir}"):
    print("LEAK the problem folder exists")
    raise SystemExit(0)
try:
    stdin_path = os.readlink("/proc/self/fd/0")
except OSError:
    stdin_path = ""
if "${dir}" in stdin_path:
    print("LEAK stdin names the problem folder:", stdin_path)
    raise SystemExit(0)
a, b = map(int, input().split())
print(a + b)
`;

  it('standard checker: no .sol (or other test file) is readable from the program, whatever the path', async () => {
    const dir = problem(aplusbFiles(2));
    expect(await judge({ problemDir: dir, sourceCode: leakC(dir) })).toMatchObject({ status: 'accept', result: 'PP' });
    expect(await judge({ problemDir: dir, language: 'python', sourceCode: leakPy(dir) })).toMatchObject({ status: 'accept', result: 'PP' });
  });

  it('custom checker: /problem is mounted for the checker only, never for the program', async () => {
    const dir = problem({
      ...aplusbFiles(2),
      'check.cpp':
        '#include <fstream>\nint main(int argc, char** argv){ std::ifstream in(argv[2]); long long a,b,c; in>>a>>b; std::ifstream out("output.txt");' +
        ' bool ok = (bool)(out>>c) && c==a+b; std::ofstream("grader_result.txt") << (ok ? "P" : "W"); }\n',
    });
    expect(await judge({ problemDir: dir, sourceCode: leakC(dir) })).toMatchObject({ status: 'accept', result: 'PP' });
    expect(await judge({ problemDir: dir, language: 'python', sourceCode: leakPy(dir) })).toMatchObject({ status: 'accept', result: 'PP' });
  });

  it('a program printing an answer file it cannot read gets it wrong', async () => {
    const dir = problem(aplusbFiles(2));
    const source = `#include <stdio.h>\nint main(void){ FILE *f = fopen("${dir}/1.sol", "r"); int c; if (!f) { puts("no"); return 0; } while ((c = fgetc(f)) != EOF) putchar(c); return 0; }\n`;
    expect(await judge({ problemDir: dir, sourceCode: source })).toMatchObject({ status: 'reject', result: '--' });
  });
});

describe('sandbox failures: Judge Error, never a verdict and never a throw', () => {
  /** The real sandbox, with the n-th run of the submission (1 = compile) answered as a sandbox failure. */
  function failingSandbox(real: Sandbox, failingRun: number): Sandbox {
    let runs = 0;
    const wrap = (slot: SandboxSlot): SandboxSlot => ({
      ...slot,
      resetBox: () => slot.resetBox(),
      addFile: (name, from, options) => slot.addFile(name, from, options),
      copyOut: (name, destination, maxBytes) => slot.copyOut(name, destination, maxBytes),
      readFile: (name, maxBytes) => slot.readFile(name, maxBytes),
      async run(request) {
        runs += 1;
        const result: RunResult = await slot.run(request);
        return runs === failingRun ? { ...result, status: 'sandbox-error', detail: 'injected: cannot create the cgroup' } : result;
      },
    });
    return { ...real, withSlot: (use) => real.withSlot((slot) => use(wrap(slot))) };
  }

  it('while compiling', async () => {
    const result = await judge({ problemDir: problem(aplusbFiles(3)), sandbox: failingSandbox(env.sandbox, 1) });
    expect(result).toMatchObject({ status: 'judgeError', result: 'Judge Error', score: 0 });
    expect(result.errmsg).toMatch(/sandbox failed while compiling/);
  });

  it('while running test 2: test 1 was reported, the failure was not', async () => {
    const reported: Array<[number, TestOutcome]> = [];
    const result = await judge({ problemDir: problem(aplusbFiles(3)), sandbox: failingSandbox(env.sandbox, 3) }, reported);
    expect(result).toMatchObject({ status: 'judgeError', result: 'Judge Error' });
    expect(result.errmsg).toMatch(/test 2|running the program/);
    expect(result.errmsg).toContain('injected');
    expect(reported.map(([testNumber, outcome]) => [testNumber, outcome.status])).toEqual([[1, 'ACCEPTED']]);
  });

  it('when acquiring a slot throws', async () => {
    const broken: Sandbox = { ...env.sandbox, withSlot: async () => Promise.reject(new Error('slot directory vanished')) };
    const result = await judge({ problemDir: problem(aplusbFiles(1)), sandbox: broken, language: 'python', sourceCode: AC_PY });
    expect(result).toMatchObject({ status: 'judgeError', result: 'Judge Error' });
    expect(result.errmsg).toContain('slot directory vanished');
  });
});
