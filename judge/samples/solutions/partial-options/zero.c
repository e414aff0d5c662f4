#include <stdio.h>
int main(void) {
  puts("0");
  return 0;
}
