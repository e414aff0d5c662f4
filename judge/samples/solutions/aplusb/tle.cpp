int main() {
  volatile unsigned long long spin = 0;
  while (true) spin = spin + 1;
}
