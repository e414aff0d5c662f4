/* Tries to create and write each path in argv; prints "path: OK" or "path: <errno name>". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        int fd = open(argv[i], O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd < 0) { printf("%s: %s\n", argv[i], strerrorname_np(errno)); continue; }
        ssize_t count = write(fd, "escaped\n", 8);
        printf("%s: %s\n", argv[i], count == 8 ? "OK" : strerrorname_np(errno));
        close(fd);
    }
    return 0;
}
