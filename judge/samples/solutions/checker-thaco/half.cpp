#include <cstdio>
int main() {
  long long target;
  if (std::scanf("%lld", &target) != 1) return 1;
  std::printf("%lld\n", target / 2);
}
