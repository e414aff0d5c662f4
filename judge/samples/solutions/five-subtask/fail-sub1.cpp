#include <cstdio>
// Wrong on cases 4 and 5 of subtask 1 (non-group, sum).
int main() {
  int subtask, index;
  if (std::scanf("%d %d", &subtask, &index) != 2) return 1;
  std::puts(subtask == 1 && index >= 4 ? "W" : "P");
}
