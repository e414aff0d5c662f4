/* Tries to read each path in argv; prints "path: OK <first line>" or "path: <errno name>". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        int fd = open(argv[i], O_RDONLY);
        if (fd < 0) { printf("%s: %s\n", argv[i], strerrorname_np(errno)); continue; }
        char buffer[256] = {0};
        ssize_t count = read(fd, buffer, sizeof buffer - 1);
        if (count < 0) { printf("%s: read %s\n", argv[i], strerrorname_np(errno)); close(fd); continue; }
        buffer[strcspn(buffer, "\n")] = 0;
        printf("%s: OK %s\n", argv[i], buffer);
        close(fd);
    }
    return 0;
}
