extension String {
    /// The NUL-terminated text a C function writes into a buffer of `capacity` bytes; nil when
    /// `fill` answers that it wrote none.
    init?(capacity: Int, _ fill: (UnsafeMutablePointer<CChar>, Int) -> Bool) {
        let text = withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer -> String? in
            buffer[0] = 0
            guard fill(buffer.baseAddress!, capacity) else { return nil }
            buffer[capacity - 1] = 0
            return String(cString: buffer.baseAddress!)
        }
        guard let text else { return nil }
        self = text
    }
}
