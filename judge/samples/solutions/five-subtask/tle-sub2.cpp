#include <cstdio>
// Loops forever on case 2 of subtask 2 (group): the rest of that group is skipped.
int main() {
  int subtask, index;
  if (std::scanf("%d %d", &subtask, &index) != 2) return 1;
  volatile unsigned long long spin = 0;
  if (subtask == 2 && index == 2) for (;;) spin = spin + 1;
  std::puts("P");
}
