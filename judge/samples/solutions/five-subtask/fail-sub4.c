#include <stdio.h>
/* Wrong on case 2 of subtask 4 (non-group, max). */
int main(void) {
  int subtask, index;
  if (scanf("%d %d", &subtask, &index) != 2) return 1;
  puts(subtask == 4 && index == 2 ? "W" : "P");
  return 0;
}
