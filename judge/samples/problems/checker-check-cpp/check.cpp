// OTOG "cppCheck" checker: ./check <n.sol> <n.in> <source file>, run in a folder holding output.txt.
// The task: print two different integers whose sum is n. Writes P or W to grader_result.txt.
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  std::ifstream input(argv[2]);
  long long n;
  if (!(input >> n)) return 3;
  std::ifstream output("output.txt");
  std::string text((std::istreambuf_iterator<char>(output)), std::istreambuf_iterator<char>());
  std::istringstream tokens(text);
  long long x, y;
  std::string extra;
  bool ok = static_cast<bool>(tokens >> x >> y) && !(tokens >> extra) && x != y && x + y == n;
  std::ofstream("grader_result.txt") << (ok ? 'P' : 'W');
  return 0;
}
