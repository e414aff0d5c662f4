#include <iostream>
#include <stdexcept>
int main() {
  long long a, b;
  std::cin >> a >> b;
  throw std::runtime_error("uncaught: std::terminate, SIGABRT");
}
