/* A syscall through the x32 ABI (getpid | 0x40000000): the filter allows only the native ABI, so the
 * process must be killed (SIGSYS) instead of bypassing the filter. */
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
int main(void) {
    long rc = syscall(0x40000000L | SYS_getpid);
    printf("x32 getpid returned %ld\n", rc);
    return 0;
}
