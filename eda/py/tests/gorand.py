"""Go's math/rand/v2 generator, so that a test moved here from Go reads the very rows the Go test
generated: rand.New(rand.NewPCG(seed1, seed2)) and its IntN (checked against Go's own output)."""
M64 = (1 << 64) - 1


class PCG:
    """rand.NewPCG(seed1, seed2): a 128-bit LCG with the DXSM output function."""
    MUL = (2549297995355413924 << 64) | 4865540595714422341
    INC = (6364136223846793005 << 64) | 1442695040888963407

    def __init__(self, seed1: int, seed2: int):
        self.state = (seed1 << 64) | seed2

    def uint64(self) -> int:
        self.state = (self.state * self.MUL + self.INC) & ((1 << 128) - 1)
        hi, lo = self.state >> 64, self.state & M64
        hi ^= hi >> 32
        hi = (hi * 0xda942042e4dd58b5) & M64
        hi ^= hi >> 48
        return (hi * (lo | 1)) & M64

    def intn(self, n: int) -> int:
        """Rand.IntN(n): uniform in [0, n), by Lemire's multiply and reject, as Go draws it."""
        if n & (n - 1) == 0:
            return self.uint64() & (n - 1)
        product = self.uint64() * n
        if product & M64 < n:
            thresh = (-n & M64) % n
            while product & M64 < thresh:
                product = self.uint64() * n
        return product >> 64
