import SurveyWire

/// SHA-256 (FIPS 180-4), for the report's `plan_digest` and the digest of a data file. Foundation
/// on Linux has no CryptoKit and the project takes no packages, so it is written out here;
/// SHA256Tests checks it against the standard's examples. A data file can be a gigabyte, so the
/// message is hashed where it lies, 64 bytes at a time, never copied or padded in a copy
/// (bench/data-scale.sh measures it with the reading of the file). A message of `fastFrom`
/// bytes or more goes to the system's OpenSSL when it is there (`OpenSSLDigest`), which hashes
/// it several times faster: a million-row feed's digest was half of its `validate` time.
enum SHA256 {
    /// The size from which OpenSSL is worth loading (a few milliseconds, once) for a message.
    static let fastFrom = 1 << 20

    /// The 32-byte digest of `message`.
    static func digest(of message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { message in
            if message.count >= fastFrom, let digest = OpenSSLDigest.sha256(message) { return digest }
            return digest(of: message)
        }
    }

    /// The 32-byte digest of the bytes at `message`, computed here.
    static func digest(of message: UnsafeRawBufferPointer) -> [UInt8] {
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
        )
        let whole = message.count / 64 * 64
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            constants.withUnsafeBufferPointer { constants in
                var blockStart = 0
                while blockStart < whole {
                    compress(UnsafeRawBufferPointer(rebasing: message[blockStart..<blockStart + 64]), &state, schedule, constants)
                    blockStart += 64
                }
                // Padding (§5.1.1): a 1 bit, zeros up to 56 bytes modulo 64, the length in bits,
                // big-endian — in one or two blocks of its own, after the message's last bytes.
                var tail = [UInt8](message[whole...])
                tail.append(0x80)
                while tail.count % 64 != 56 { tail.append(0) }
                let bits = UInt64(message.count) &* 8
                for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
                tail.withUnsafeBytes { tail in
                    for start in stride(from: 0, to: tail.count, by: 64) {
                        compress(UnsafeRawBufferPointer(rebasing: tail[start..<start + 64]), &state, schedule, constants)
                    }
                }
            }
        }
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        return words.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }

    /// The digest of `message` in lowercase hexadecimal, as `sha256sum` prints it.
    static func hex(of message: [UInt8]) -> String {
        hex(digest(of: message))
    }

    /// A digest in lowercase hexadecimal.
    static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xf)]] })
    }

    /// One 64-byte block into `state` (§6.2.2); `schedule` is room for 64 words.
    @inline(__always)
    private static func compress(
        _ block: UnsafeRawBufferPointer, _ state: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32),
        _ schedule: UnsafeMutableBufferPointer<UInt32>, _ constants: UnsafeBufferPointer<UInt32>
    ) {
        let w = schedule.baseAddress.unsafelyUnwrapped
        let k = constants.baseAddress.unsafelyUnwrapped
        for t in 0..<16 { w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self)) }
        for t in 16..<64 {
            let x = w[t - 15]
            let y = w[t - 2]
            let s0 = rotate(x, 7) ^ rotate(x, 18) ^ (x >> 3)
            let s1 = rotate(y, 17) ^ rotate(y, 19) ^ (y >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = state
        for t in 0..<64 {
            let sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
            let choice = (e & f) ^ (~e & g)
            let t1 = h &+ sum1 &+ choice &+ k[t] &+ w[t]
            let sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let t2 = sum0 &+ majority
            h = g
            g = f
            f = e
            e = d &+ t1
            d = c
            c = b
            b = a
            a = t1 &+ t2
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }

    /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes (§4.2.2).
    private static let constants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}
