/* malloc bomb: 1 MiB blocks, each touched, forever. */
#include <stdlib.h>
#include <string.h>
int main(void) {
    for (;;) {
        char *block = malloc(1 << 20);
        if (!block) return 3;
        memset(block, 1, 1 << 20);
    }
}
