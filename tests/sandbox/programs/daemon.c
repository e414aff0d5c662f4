/* Detached daemon: fork, setsid, fork again; the grandchild burns CPU and appends to daemon.log while the
 * parent exits at once with status 0. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(void) {
    pid_t child = fork();
    if (child < 0) return 2;
    if (child == 0) {
        setsid();
        if (fork() != 0) _exit(0);
        close(0); close(1); close(2);
        for (;;) {
            int fd = open("daemon.log", O_WRONLY | O_CREAT | O_APPEND, 0644);
            if (fd >= 0) { write(fd, "alive\n", 6); close(fd); }
            for (volatile unsigned long x = 0; x < 10000000UL; x++) {}
        }
    }
    printf("parent done\n");
    return 0;
}
