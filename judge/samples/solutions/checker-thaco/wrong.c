#include <stdio.h>
int main(void) {
  puts("-1");
  return 0;
}
