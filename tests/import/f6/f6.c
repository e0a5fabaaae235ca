extern long g(long);
long f6(long a, long b, long c, long d, long e, long h) {
  long x = g(a);
  long y = g(x + 0xfff0000000);
  return x * b + y * c + d * e + h * 0xfff0000000 + (x == y) - a;
}
