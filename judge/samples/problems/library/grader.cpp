// Library file copied beside the contestant's source and compiled with it (it has main()).
#include <cstdio>
#include "add.h"

int main() {
  long long a, b;
  if (std::scanf("%lld %lld", &a, &b) != 2) return 1;
  std::printf("%lld\n", add(a, b));
  return 0;
}
