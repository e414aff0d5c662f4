/* Calls that the seccomp filter (or the namespaces) must refuse; prints "name: <errno name or OK>". */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <signal.h>
static void report(const char *name, long rc) { printf("%s: %s\n", name, rc < 0 ? strerrorname_np(errno) : "OK"); }
int main(void) {
    report("unshare-user", unshare(CLONE_NEWUSER));
    report("unshare-net", unshare(CLONE_NEWNET));
    report("mount", mount("none", "/tmp", "tmpfs", 0, NULL));
    report("ptrace", ptrace(PTRACE_TRACEME, 0, NULL, NULL));
    report("io_uring_setup", syscall(SYS_io_uring_setup, 8, NULL));
    report("bpf", syscall(SYS_bpf, 0, NULL, 0));
    report("perf_event_open", syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
    report("keyctl", syscall(SYS_keyctl, 0, 0, 0, 0, 0));
    report("clone-newuser", syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
    report("clone3", syscall(SYS_clone3, NULL, 0));
    report("unix-socket", syscall(SYS_socket, 1 /* AF_UNIX */, 1, 0));
    return 0;
}
