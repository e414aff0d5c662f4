/* A checker-like program that hangs: it blocks forever without using CPU. */
#include <unistd.h>
int main(void) { for (;;) pause(); }
