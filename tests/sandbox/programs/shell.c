/* Spawns a shell two ways: system() and exec of /bin/sh. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(void) {
    fflush(stdout);
    if (system("echo system-uid=$(id -u); cat /etc/hostname 2>&1 | head -1") != 0) printf("system failed\n");
    fflush(stdout);
    execl("/bin/sh", "sh", "-c", "echo exec-uid=$(id -u) host=$(hostname); ls /home /root 2>&1 | head -2; exit 0", (char *)NULL);
    perror("execl");
    return 1;
}
