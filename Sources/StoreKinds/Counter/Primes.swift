/// Prime arithmetic for the counter kind.
enum Primes {
    /// Deterministic Miller–Rabin for every 64-bit value (bases 2…37 suffice below 3.3e24),
    /// so a restored state with a huge `count` cannot stall the store.
    static func isPrime(_ n: Int) -> Bool {
        if n < 2 { return false }
        let small = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]
        for p in small where n % p == 0 { return n == p }
        let m = UInt64(n)
        var d = m - 1, r = 0
        while d & 1 == 0 { d >>= 1; r += 1 }
        func mulmod(_ a: UInt64, _ b: UInt64) -> UInt64 {
            let (high, low) = a.multipliedFullWidth(by: b)
            return m.dividingFullWidth((high, low)).remainder
        }
        func powmod(_ base: UInt64, _ exp: UInt64) -> UInt64 {
            var result: UInt64 = 1, b = base % m, e = exp
            while e > 0 {
                if e & 1 == 1 { result = mulmod(result, b) }
                b = mulmod(b, b)
                e >>= 1
            }
            return result
        }
        witness: for a in small {
            var x = powmod(UInt64(a), d)
            if x == 1 || x == m - 1 { continue }
            for _ in 0..<max(0, r - 1) {
                x = mulmod(x, x)
                if x == m - 1 { continue witness }
            }
            return false
        }
        return true
    }

    /// Largest `n` whose n-th prime the effect computes (a sieve of ~16 MB); beyond it the answer is nil.
    static let nthPrimeLimit = 1_000_000

    /// The n-th prime (1-based: nthPrime(1) == 2); nil when n < 1 or n > `nthPrimeLimit`.
    static func nthPrime(_ n: Int) -> Int? {
        guard n >= 1, n <= nthPrimeLimit else { return nil }
        // Rosser's bound: p_n < n (ln n + ln ln n) for n >= 6.
        let x = Double(max(n, 6))
        let bound = Int(x * (log(x) + log(log(x)))) + 10
        var composite = [Bool](repeating: false, count: bound + 1)
        var found = 0
        for i in 2...bound where !composite[i] {
            found += 1
            if found == n { return i }
            if i <= bound / i {
                var j = i * i
                while j <= bound { composite[j] = true; j += i }
            }
        }
        return nil
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
