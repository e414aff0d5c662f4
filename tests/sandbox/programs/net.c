/* TCP connect to 127.0.0.1:argv[1]; prints what happened and exits 0. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) { printf("socket: %s\n", strerrorname_np(errno)); return 0; }
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons(argc > 1 ? atoi(argv[1]) : 80) };
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) { printf("connect: %s\n", strerrorname_np(errno)); return 0; }
    printf("connected\n");
    return 0;
}
