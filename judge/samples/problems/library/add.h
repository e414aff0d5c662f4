// Provided by the problem: the contestant implements add() in their source.
long long add(long long a, long long b);
