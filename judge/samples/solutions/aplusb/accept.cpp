#include <bits/stdc++.h>
int main() {
  // C++17 structured bindings: proves -std=c++17.
  auto [a, b] = std::pair<long long, long long>{};
  std::cin >> a >> b;
  std::cout << a + b << "\n";
}
