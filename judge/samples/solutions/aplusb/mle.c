#include <stdio.h>
#include <stdlib.h>
/* Touches 96 MiB, one write per page: over a 32 MB limit. */
int main(void) {
  long long a, b;
  if (scanf("%lld %lld", &a, &b) != 2) return 1;
  size_t size = (size_t)96 << 20;
  volatile char *block = malloc(size);
  if (!block) return 2;
  for (size_t i = 0; i < size; i += 4096) block[i] = 1;
  printf("%lld\n", a + b + block[size - 4096] - 1);
  return 0;
}
