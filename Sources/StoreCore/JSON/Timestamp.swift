/// ISO-8601 UTC timestamps with milliseconds ("2026-11-21T20:01:41.123Z"), written and read
/// by hand: no formatter, no locale, no allocation beyond the result.
public enum Timestamp {
    /// `millis` since the Unix epoch as "YYYY-MM-DDTHH:MM:SS.mmmZ" (proleptic Gregorian, UTC).
    public static func iso8601(millis: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(millis: millis, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the ISO-8601 digits (without quotes) to a byte buffer.
    public static func append(millis: Int64, to bytes: inout [UInt8]) {
        let (secondsTotal, ms) = floorDivMod(millis, 1000)
        let (days, secondOfDay) = floorDivMod(secondsTotal, 86_400)
        let (y, m, d) = civil(fromDays: days)
        func two(_ v: Int64) { bytes.append(UInt8(48 + v / 10)); bytes.append(UInt8(48 + v % 10)) }
        if y < 0 || y > 9999 {
            // Outside four digits ISO-8601 needs an expanded year with a sign.
            bytes.append(y < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            let digits = Array(String(abs(y)).utf8)
            bytes.append(contentsOf: Array(repeating: 48, count: max(0, 6 - digits.count)) + digits)
        } else {
            two(y / 100); two(y % 100)
        }
        bytes.append(UInt8(ascii: "-")); two(m)
        bytes.append(UInt8(ascii: "-")); two(d)
        bytes.append(UInt8(ascii: "T")); two(secondOfDay / 3600)
        bytes.append(UInt8(ascii: ":")); two(secondOfDay / 60 % 60)
        bytes.append(UInt8(ascii: ":")); two(secondOfDay % 60)
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(48 + ms / 100)); two(ms % 100)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// Reads "YYYY-MM-DDTHH:MM:SS[.fff]Z" back to millis; nil for anything else, a day the month
    /// does not have and a leap second included.
    public static func millis(iso8601 text: String) -> Int64? {
        let u = Array(text.utf8)
        guard u.count >= 20, u.last == UInt8(ascii: "Z") else { return nil }
        func num(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= u.count else { return nil }
            var v: Int64 = 0
            for i in from..<from + count {
                guard u[i] >= 48 && u[i] <= 57 else { return nil }
                v = v * 10 + Int64(u[i] - 48)
            }
            return v
        }
        guard let y = num(0, 4), u[4] == UInt8(ascii: "-"), let mo = num(5, 2), u[7] == UInt8(ascii: "-"),
              let d = num(8, 2), u[10] == UInt8(ascii: "T"), let h = num(11, 2), u[13] == UInt8(ascii: ":"),
              let mi = num(14, 2), u[16] == UInt8(ascii: ":"), let s = num(17, 2),
              (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y), h < 24, mi < 60, s < 60 else { return nil }
        var ms: Int64 = 0
        if u[19] == UInt8(ascii: ".") {
            let fracCount = u.count - 21
            guard fracCount >= 1, fracCount <= 9, let f = num(20, fracCount) else { return nil }
            var scaled = f
            var n = fracCount
            while n < 3 { scaled *= 10; n += 1 }
            while n > 3 { scaled /= 10; n -= 1 }
            ms = scaled
        } else if u.count != 20 {
            return nil
        }
        let days = days(fromCivil: y, mo, d)
        return ((days * 86_400 + h * 3600 + mi * 60 + s) * 1000) + ms
    }

    /// Read back, a date the calendar does not have (February 30) or a leap second would come
    /// out as another instant written differently, so such texts are refused, not rolled over.
    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func floorDivMod(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    /// Howard Hinnant's civil_from_days: days since 1970-01-01 to (year, month, day).
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }

    /// The inverse, days_from_civil.
    static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
