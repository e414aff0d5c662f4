#include <stdio.h>
int main(void) {
  long long a, b;
  if (scanf("%lld %lld", &a, &b) != 2) return 1;
  volatile int *nothing = 0;
  *nothing = (int)(a + b); /* SIGSEGV */
  return 0;
}
