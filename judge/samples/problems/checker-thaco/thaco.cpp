// OTOG "thaco" partial checker: ./thaco <n.in> <n.sol> <output file>; prints a score in [0, 1].
// The task: print an integer x with 0 <= x <= T (T is in n.sol); the score is x / T.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  std::ifstream answer(argv[2]);
  long long target;
  if (!(answer >> target) || target <= 0) return 3;
  std::ifstream output(argv[3]);
  std::string text((std::istreambuf_iterator<char>(output)), std::istreambuf_iterator<char>());
  std::istringstream tokens(text);
  long long x;
  std::string extra;
  double score = 0;
  if ((tokens >> x) && !(tokens >> extra) && x >= 0 && x <= target) score = static_cast<double>(x) / target;
  std::fprintf(stderr, "translate:partial\n");
  std::printf("%.6f\n", score);
  return 0;
}
