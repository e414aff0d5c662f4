/*
 * otog-runner: the first process of every sandboxed run (judge/src/sandbox/bwrap-driver.ts). It replaces
 * the former `sh -c 'echo $$ > cgroup.procs…' → setpriv → prlimit` chain in front of bwrap: one static
 * exec instead of three programs (two dynamically linked), and a deterministic end.
 *
 *   otog-runner --cgroup PROCS_FILE…                      (arguments, given when it is spawned)
 *   --stdin F --stdout F --stderr F --uid N --rlimit NAME=SOFT:HARD… -- /usr/bin/bwrap ARGS…
 *                                                         (the run, on stdin, NUL-terminated words, then EOF)
 *
 * Built static by the judge at start (judge/src/sandbox/tools.ts) from this file only; every word comes
 * from the judge, never from a submission. Spawned as root with the seccomp BPF on fd 3 and bwrap's
 * status pipe on fd 4. The judge starts the runner of a slot's next run while the current one runs, so
 * the cgroup join below (slow when no other cgroup migration happened in the last ~20 ms: the kernel waits
 * for an RCU grace period, research in bench/analysis.md) is off the run's critical path. Steps:
 *   1. join the run's cgroups (write "0", i.e. itself, into each cgroup.procs), so that everything forked
 *      from here on is counted and limited there;
 *   2. PR_SET_PDEATHSIG(SIGKILL): die with the judge; bwrap's --die-with-parent then takes the sandbox down;
 *      PR_SET_CHILD_SUBREAPER: bwrap's pid 1 (orphaned when the outer bwrap exits first) becomes our child,
 *      not the host init's, so it is reaped here at once;
 *   3. wait for the run on stdin; open its stdin/stdout/stderr files (as root, like the judge did before);
 *   4. fork: the child sets the rlimits, drops every group, switches to the slot's uid/gid, sets
 *      no_new_privs and its own parent-death signal (credential changes clear it), then execs bwrap;
 *   5. the runner closes its copies of the run's fds and reaps children until none is left, so when it
 *      exits, every process of the run has been reaped (the judge sees no straggler, and the cgroup can be
 *      removed at once). It exits like bwrap did (same code, or same signal). SIGTERM from the judge
 *      (a time limit) makes it SIGKILL bwrap and go on reaping, so a killed run ends the same way.
 * The runner stays root but runs no untrusted code and is invisible from inside the sandbox (other pid
 * namespace). A failure prints "otog-runner: …" on the run's stderr (once it is open) and exits 127: the
 * judge then reports a sandbox error, as bwrap's status pipe never says "exit-code".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "otog-runner: %s%s%s: %s\n", what, detail ? " " : "", detail ? detail : "", strerror(errno));
  _exit(127);
}

static void usage(const char *detail) {
  fprintf(stderr, "otog-runner: bad arguments (%s)\n", detail);
  _exit(127);
}

static rlim_t parse_limit(const char *text, const char *arg) {
  if (strncmp(text, "unlimited", 9) == 0 && (text[9] == '\0' || text[9] == ':')) return RLIM_INFINITY;
  char *end;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno || end == text || (*end != '\0' && *end != ':')) usage(arg);
  return (rlim_t)value;
}

static volatile pid_t bwrap_pid;

static void on_term(int sig) {
  (void)sig;
  if (bwrap_pid > 0) kill(bwrap_pid, SIGKILL);
  else _exit(128 + SIGTERM); /* nothing forked yet */
}

#define MAX_RLIMITS 8
#define MAX_CGROUPS 4
#define MAX_REQUEST (1 << 20)
#define MAX_WORDS 4096

/* Reads the request (NUL-terminated words until EOF) from fd 0 into a NULL-terminated word array. */
static char **read_request(int *count) {
  static char buffer[MAX_REQUEST];
  static char *words[MAX_WORDS + 1];
  size_t used = 0;
  for (;;) {
    ssize_t got = read(0, buffer + used, sizeof buffer - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail("cannot read the run", NULL);
    if (got == 0) break;
    used += (size_t)got;
    if (used == sizeof buffer) usage("request too long");
  }
  if (used == 0 || buffer[used - 1] != '\0') usage("request not NUL-terminated");
  int n = 0;
  for (size_t at = 0; at < used; at += strlen(buffer + at) + 1) {
    if (n == MAX_WORDS) usage("too many words");
    words[n++] = buffer + at;
  }
  words[n] = NULL;
  *count = n;
  return words;
}

static void open_onto(const char *path, int flags, int target) {
  int fd = open(path, flags | O_CLOEXEC, 0600);
  if (fd < 0) fail("cannot open", path);
  if (dup3(fd, target, 0) < 0) fail("dup", path);
  close(fd);
}

int main(int argc, char **argv) {
  /* 1. Join the run's cgroups before anything else is forked (a failure is reported on the run's stderr). */
  const char *join_failed = NULL;
  int join_errno = 0;
  for (int i = 1; i < argc; i += 2) {
    if (strcmp(argv[i], "--cgroup") != 0 || i + 1 >= argc) usage(argv[i]);
    int fd = open(argv[i + 1], O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) {
      join_failed = argv[i + 1];
      join_errno = errno;
      break;
    }
    close(fd);
  }

  /* 2. Die with the judge (checked against a race with its death), adopt orphans. */
  pid_t judge = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) fail("prctl", NULL);
  if (getppid() != judge) _exit(127);

  /* SIGTERM from the judge (time limit, or a spare runner no longer needed): kill bwrap, whose pid 1
   * then takes the pid namespace down, and go on reaping; before bwrap exists, just exit. Blocked
   * around fork so that bwrap_pid is always set when the handler runs. */
  sigset_t term, previous;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  struct sigaction action = {0};
  action.sa_handler = on_term;
  if (sigaction(SIGTERM, &action, NULL) != 0) fail("sigaction", NULL);

  /* 3. The run: stdio first, so that any later failure lands in its stderr file. */
  int argc2;
  char **words = read_request(&argc2);
  const char *paths[3] = {NULL, NULL, NULL};
  const char *path_options[3] = {"--stdin", "--stdout", "--stderr"};
  struct { int resource; struct rlimit limit; } rlimits[MAX_RLIMITS];
  int nrlimits = 0;
  long uid = -1;
  int i = 0;
  for (; i < argc2 && strcmp(words[i], "--") != 0; i++) {
    if (i + 1 >= argc2) usage(words[i]);
    const char *option = words[i], *value = words[++i];
    int path_index = -1;
    for (int p = 0; p < 3; p++)
      if (strcmp(option, path_options[p]) == 0) path_index = p;
    if (path_index >= 0) {
      paths[path_index] = value;
    } else if (strcmp(option, "--uid") == 0) {
      char *end;
      uid = strtol(value, &end, 10);
      if (*end || uid <= 0 || uid > 0x7fffffff) usage(value);
    } else if (strcmp(option, "--rlimit") == 0) {
      static const struct { const char *name; int resource; } names[] = {
        {"cpu", RLIMIT_CPU}, {"fsize", RLIMIT_FSIZE}, {"core", RLIMIT_CORE},
        {"stack", RLIMIT_STACK}, {"nofile", RLIMIT_NOFILE}, {"nproc", RLIMIT_NPROC},
      };
      const char *eq = strchr(value, '='), *colon = eq ? strchr(eq, ':') : NULL;
      if (!eq || !colon || nrlimits == MAX_RLIMITS) usage(value);
      int resource = -1;
      for (size_t n = 0; n < sizeof names / sizeof names[0]; n++)
        if (strlen(names[n].name) == (size_t)(eq - value) && strncmp(value, names[n].name, eq - value) == 0) resource = names[n].resource;
      if (resource < 0) usage(value);
      rlimits[nrlimits].resource = resource;
      rlimits[nrlimits].limit.rlim_cur = parse_limit(eq + 1, value);
      rlimits[nrlimits].limit.rlim_max = parse_limit(colon + 1, value);
      nrlimits++;
    } else {
      usage(option);
    }
  }
  if (!paths[0] || !paths[1] || !paths[2]) usage("need --stdin, --stdout and --stderr");
  open_onto(paths[2], O_WRONLY | O_CREAT | O_TRUNC, 2);
  open_onto(paths[1], O_WRONLY | O_CREAT | O_TRUNC, 1);
  open_onto(paths[0], O_RDONLY, 0);
  if (join_failed) {
    errno = join_errno;
    fail("cannot join", join_failed);
  }
  if (i + 1 >= argc2 || uid < 0) usage("need --uid and -- PROGRAM");
  char **program = words + i + 1;

  /* 4. The sandbox's limits and identity, then bwrap. */
  if (sigprocmask(SIG_BLOCK, &term, &previous) != 0) fail("sigprocmask", NULL);
  pid_t self = getpid();
  pid_t child = fork();
  if (child < 0) fail("fork", NULL);
  if (child == 0) {
    if (sigprocmask(SIG_SETMASK, &previous, NULL) != 0) fail("sigprocmask", NULL);
    for (int r = 0; r < nrlimits; r++)
      if (setrlimit(rlimits[r].resource, &rlimits[r].limit) != 0) fail("setrlimit", NULL);
    if (setgroups(0, NULL) != 0) fail("setgroups", NULL);
    if (setresgid(uid, uid, uid) != 0) fail("setresgid", NULL);
    if (setresuid(uid, uid, uid) != 0) fail("setresuid", NULL);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("no_new_privs", NULL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail("prctl", NULL);
    if (getppid() != self) _exit(127);
    execv(program[0], program);
    fail("cannot execute", program[0]);
  }
  bwrap_pid = child;
  sigprocmask(SIG_SETMASK, &previous, NULL);

  /* 5. Keep nothing of the run open (bwrap's status pipe must reach EOF when bwrap is done), reap all. */
  for (int fd = 0; fd <= 4; fd++) close(fd);
  int status = 0, bwrap_status = 0;
  for (;;) {
    pid_t pid = waitpid(-1, &status, __WALL);
    if (pid == child) bwrap_status = status;
    if (pid < 0 && errno != EINTR) break; /* ECHILD: nothing of the run is left */
  }
  if (WIFSIGNALED(bwrap_status)) {
    signal(WTERMSIG(bwrap_status), SIG_DFL);
    kill(self, WTERMSIG(bwrap_status));
    _exit(128 + WTERMSIG(bwrap_status));
  }
  _exit(WEXITSTATUS(bwrap_status));
}
