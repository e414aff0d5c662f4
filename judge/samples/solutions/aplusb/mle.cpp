#include <iostream>
#include <vector>
// Touches 96 MiB: over a 32 MB limit.
int main() {
  long long a, b;
  std::cin >> a >> b;
  std::vector<char> block(96u << 20, 1);
  std::cout << a + b + block.back() - 1 << "\n";
}
