/*
 * seccomp-gen: writes the judge sandbox's seccomp filter as raw BPF (for `bwrap --seccomp FD`).
 *
 *   gcc -O2 -o seccomp-gen seccomp-gen.c -lseccomp
 *   ./seccomp-gen OUT.bpf          (or "./seccomp-gen --pfc" to print the filter in readable form)
 *
 * Built and run by the judge at start (judge/src/sandbox/tools.ts) into its build directory; see
 * docs research/sandbox.md "Seccomp filter". Default action: allow. The sandbox already runs in its own
 * user, pid, network, mount, ipc and uts namespaces as an unprivileged uid; this filter removes kernel
 * attack surface that a contest program never needs:
 *   - EPERM: ptrace, mounting and namespace changes, keyrings, bpf, perf, io_uring, userfaultfd,
 *     cross-process memory access, module/kexec loading, reboot, swap, accounting, quotas, handle-based
 *     opens, fanotify, syslog, personality, the new mount API, ldt/io port access, kcmp, pidfd_getfd.
 *   - socket(): any family other than AF_UNIX -> EACCES (no network even if a namespace leaked).
 *   - clone() with any CLONE_NEW* flag -> EPERM; clone3 -> ENOSYS so that glibc falls back to clone(),
 *     whose flags (unlike clone3's struct) a filter can inspect.
 * Only the native architecture is allowed: a syscall through another ABI (int 0x80 i386, x32) kills the
 * process (libseccomp's default bad-architecture action).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static const char *const denied[] = {
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "mount", "umount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "keyctl", "add_key", "request_key",
    "bpf", "perf_event_open", "userfaultfd", "fanotify_init",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd",
    "open_by_handle_at", "name_to_handle_at", "syslog", "personality", "uselib", "ustat", "sysfs",
    "vhangup", "iopl", "ioperm", "modify_ldt", "lookup_dcookie", "nfsservctl",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
};

static const unsigned long namespace_flags[] = {
    CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP, CLONE_NEWTIME,
};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT.bpf | --pfc\n", argv[0]);
        return 2;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        fprintf(stderr, "seccomp_init failed\n");
        return 1;
    }
    int rc = 0;
    for (size_t i = 0; i < sizeof denied / sizeof denied[0] && rc == 0; i++) {
        int nr = seccomp_syscall_resolve_name(denied[i]);
        /* Not a syscall on this architecture (unknown, or a libseccomp pseudo-number such as umount on
         * x86_64, which only has umount2). */
        if (nr < 0) continue;
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
        if (rc) fprintf(stderr, "rule %s: %s\n", denied[i], strerror(-rc));
    }
    if (rc == 0) {
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
        if (rc) fprintf(stderr, "rule socket: %s\n", strerror(-rc));
    }
    for (size_t i = 0; i < sizeof namespace_flags / sizeof namespace_flags[0] && rc == 0; i++) {
        unsigned long flag = namespace_flags[i];
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
        if (rc) fprintf(stderr, "rule clone: %s\n", strerror(-rc));
    }
    if (rc == 0) {
        int nr = seccomp_syscall_resolve_name("clone3");
        if (nr >= 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
        if (rc) fprintf(stderr, "rule clone3: %s\n", strerror(-rc));
    }
    if (rc == 0) {
        if (strcmp(argv[1], "--pfc") == 0) {
            rc = seccomp_export_pfc(ctx, STDOUT_FILENO);
        } else {
            int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd < 0) {
                perror(argv[1]);
                rc = -errno;
            } else {
                rc = seccomp_export_bpf(ctx, fd);
                if (close(fd) != 0 && rc == 0) rc = -errno;
            }
        }
        if (rc) fprintf(stderr, "export: %s\n", strerror(-rc));
    }
    seccomp_release(ctx);
    return rc == 0 ? 0 : 1;
}
