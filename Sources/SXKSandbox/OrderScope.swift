import SXKCore
import SXKModels
import Glibc

/// One generated order; every field is a pure function of (seed, scope, index).
struct GeneratedOrder {
    let index: Int
    let orderId: Int
    let unix: Int
    let status: Int
    let amountCents: Int
    let depositCents: Int
    let customerName: String
    let customerPhone: String
    let photographerName: String
}

/// Per-day totals in cents. Counted orders are the paid ones (status 2, 3, 4); refunds are status 4.
struct DayTotals {
    var orderCount = 0
    var orderAmount = 0
    var refundCount = 0
    var refundAmount = 0

    static func + (a: DayTotals, b: DayTotals) -> DayTotals {
        DayTotals(orderCount: a.orderCount + b.orderCount, orderAmount: a.orderAmount + b.orderAmount,
                  refundCount: a.refundCount + b.refundCount, refundAmount: a.refundAmount + b.refundAmount)
    }
}

/// The orders of one scope (a photographer, a scenic area or a store), generated on demand:
/// order 0 is the newest, createTime strictly decreases with the index over the 90 days before
/// the reference instant. Only per-day totals and per-block status counts are precomputed.
final class OrderScope: @unchecked Sendable {
    static let spanSeconds = 90 * 86400
    static let blockSize = 1024

    let key: String
    let number: Int
    let count: Int
    let isDeposit: Bool
    let scenicName: String
    let storeName: String?
    let photographers: [String]
    private let salt: UInt64
    private let referenceUnix: Int
    private let step: Int

    private struct Index {
        let firstDay: Int
        let days: [DayTotals]
        /// blockCounts[status - 1][block] = orders of that status in the block.
        let blockCounts: [[Int32]]
        let statusTotals: [Int]
    }

    private let lock = Lock()
    private var index: Index?

    init(key: String, number: Int, seed: UInt64, count: Int, referenceUnix: Int, isDeposit: Bool,
         scenicName: String, storeName: String?, photographers: [String]) {
        self.key = key
        self.number = number
        self.count = count
        self.isDeposit = isDeposit
        self.scenicName = scenicName
        self.storeName = storeName
        self.photographers = photographers
        self.salt = SeedHash.mix(seed ^ SeedHash.string(key))
        self.referenceUnix = referenceUnix
        self.step = max(1, OrderScope.spanSeconds / count)
    }

    private func hash(_ i: Int, _ lane: UInt64) -> UInt64 { SeedHash.mix(salt &+ UInt64(i) &* 0x2545_F491_4F6C_DD1D &+ lane) }

    func status(_ i: Int) -> Int {
        let p = (hash(i, 1) >> 8) % 100
        return p < 6 ? 1 : p < 38 ? 2 : p < 92 ? 3 : 4
    }

    func unix(_ i: Int) -> Int {
        referenceUnix - (i * OrderScope.spanSeconds) / count - Int(hash(i, 1) >> 40) % step
    }

    func amountCents(_ i: Int) -> Int {
        let h = hash(i, 1)
        return OrderNames.packageCents[Int(h % UInt64(OrderNames.packageCents.count))] - Int((h >> 16) % 37) * 37
    }

    private func customerIndices(_ h: UInt64) -> (Int, Int) {
        (Int(h % UInt64(OrderNames.surnames.count)), Int((h >> 8) % UInt64(OrderNames.givenNames.count)))
    }

    private func photographerIndex(_ h: UInt64) -> Int { Int((h >> 40) % UInt64(photographers.count)) }

    func orderId(_ i: Int) -> Int { number * 10_000_000 + (count - i) }

    func orderNo(_ i: Int) -> String {
        "SX" + ShanghaiCalendar.compactDate(day: ShanghaiCalendar.dayNumber(unix: unix(i))) + ShanghaiCalendar.pad(orderId(i), 9)
    }

    func order(_ i: Int) -> GeneratedOrder {
        let h2 = hash(i, 2)
        let (surname, given) = customerIndices(h2)
        let amount = amountCents(i)
        let prefix = OrderNames.phonePrefixes[Int((h2 >> 16) % UInt64(OrderNames.phonePrefixes.count))]
        return GeneratedOrder(
            index: i, orderId: orderId(i), unix: unix(i), status: status(i), amountCents: amount,
            depositCents: min(amount, OrderNames.depositCents[Int((h2 >> 48) % 3)]),
            customerName: OrderNames.surnames[surname] + OrderNames.givenNames[given],
            customerPhone: prefix + "****" + ShanghaiCalendar.pad(Int((h2 >> 24) % 10000), 4),
            photographerName: photographers[photographerIndex(h2)])
    }

    func json(_ order: GeneratedOrder) -> JSONValue {
        var object: JSONObject = [
            "orderId": .int(order.orderId),
            "orderNo": .string(orderNo(order.index)),
            "status": .int(order.status),
            "statusText": .string(OrderStatusCodes.label(order.status) ?? ""),
            "amount": .number(Money.yuan(order.amountCents)),
            "createTime": .string(ShanghaiCalendar.timestamp(unix: order.unix)),
            "customerName": .string(order.customerName),
            "customerPhone": .string(order.customerPhone),
            "scenicName": .string(scenicName),
        ]
        if let storeName { object["storeName"] = .string(storeName) }
        object["photographerName"] = .string(order.photographerName)
        if isDeposit {
            object["depositAmount"] = .number(Money.yuan(order.depositCents))
            let writtenOff = order.status == 3
            object["writeOffStatus"] = .int(writtenOff ? 1 : 0)
            object["writeOffStatusText"] = .string(writtenOff ? "已核销" : "未核销")
        }
        return .object(object)
    }

    // MARK: - Precomputed index

    private func builtIndex() -> Index {
        lock.lock()
        defer { lock.unlock() }
        if let index { return index }
        let lastDay = ShanghaiCalendar.dayNumber(unix: referenceUnix)
        let firstDay = ShanghaiCalendar.dayNumber(unix: unix(count - 1))
        var days = [DayTotals](repeating: DayTotals(), count: lastDay - firstDay + 1)
        let blocks = (count + OrderScope.blockSize - 1) / OrderScope.blockSize
        var blockCounts = [[Int32]](repeating: [Int32](repeating: 0, count: blocks), count: 4)
        var statusTotals = [0, 0, 0, 0]
        for i in 0..<count {
            let status = status(i)
            blockCounts[status - 1][i / OrderScope.blockSize] += 1
            statusTotals[status - 1] += 1
            guard status >= 2 else { continue }
            let slot = ShanghaiCalendar.dayNumber(unix: unix(i)) - firstDay
            let amount = amountCents(i)
            days[slot].orderCount += 1
            days[slot].orderAmount += amount
            if status == 4 {
                days[slot].refundCount += 1
                days[slot].refundAmount += amount
            }
        }
        let built = Index(firstDay: firstDay, days: days, blockCounts: blockCounts, statusTotals: statusTotals)
        index = built
        return built
    }

    /// Totals of one day (zero outside the generated span).
    func totals(day: Int) -> DayTotals {
        let index = builtIndex()
        let slot = day - index.firstDay
        return slot >= 0 && slot < index.days.count ? index.days[slot] : DayTotals()
    }

    /// Totals of the days `first…last`, inclusive.
    func totals(from first: Int, to last: Int) -> DayTotals {
        let index = builtIndex()
        var sum = DayTotals()
        let lo = max(first, index.firstDay)
        let hi = min(last, index.firstDay + index.days.count - 1)
        if lo <= hi { for day in lo...hi { sum = sum + index.days[day - index.firstDay] } }
        return sum
    }

    // MARK: - Queries

    /// Rows before `page` (1-based): past every list when the product overflows (a client may ask
    /// for page 9223372036854775807), never a trap that ends the server.
    static func skip(page: Int, pageSize: Int) -> Int {
        let (rows, overflow) = max(0, page - 1).multipliedReportingOverflow(by: max(0, pageSize))
        return overflow ? Int.max : rows
    }

    /// One page of orders, newest first, filtered by status and keyword; and the filtered total.
    func page(status: Int?, keyword: String?, page: Int, pageSize: Int) -> (total: Int, orders: [GeneratedOrder]) {
        let skip = OrderScope.skip(page: page, pageSize: pageSize)
        if let keyword, !keyword.isEmpty {
            return scan(status: status, matcher: KeywordMatcher(keyword: keyword, scope: self), skip: skip, take: pageSize)
        }
        guard let status else {
            let indices = skip < count ? skip..<min(count, skip + pageSize) : count..<count
            return (count, indices.map(order))
        }
        let index = builtIndex()
        let total = index.statusTotals[status - 1]
        guard skip < total else { return (total, []) }
        var remaining = skip
        var block = 0
        let counts = index.blockCounts[status - 1]
        while remaining >= Int(counts[block]) {
            remaining -= Int(counts[block])
            block += 1
        }
        var result: [GeneratedOrder] = []
        var i = block * OrderScope.blockSize
        while i < count && result.count < pageSize {
            if self.status(i) == status {
                if remaining > 0 { remaining -= 1 } else { result.append(order(i)) }
            }
            i += 1
        }
        return (total, result)
    }

    private func scan(status: Int?, matcher: KeywordMatcher, skip: Int, take: Int) -> (total: Int, orders: [GeneratedOrder]) {
        var total = 0
        var result: [GeneratedOrder] = []
        for i in 0..<count {
            if let status, self.status(i) != status { continue }
            guard matcher.matches(i) else { continue }
            if total >= skip && result.count < take { result.append(order(i)) }
            total += 1
        }
        return (total, result)
    }

    /// Keyword search over orderNo, customer name and photographer name, with the name pools
    /// pre-matched so a scan of a million orders stays cheap.
    private struct KeywordMatcher {
        let scope: OrderScope
        let upperKeyword: String
        let customerHits: [Bool]
        let photographerHits: [Bool]
        let checkOrderNo: Bool

        init(keyword: String, scope: OrderScope) {
            self.scope = scope
            self.upperKeyword = keyword.uppercased()
            var hits: [Bool] = []
            hits.reserveCapacity(OrderNames.surnames.count * OrderNames.givenNames.count)
            for surname in OrderNames.surnames {
                for given in OrderNames.givenNames { hits.append((surname + given).contains(keyword)) }
            }
            customerHits = hits
            photographerHits = scope.photographers.map { $0.contains(keyword) }
            checkOrderNo = keyword.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }
        }

        func matches(_ i: Int) -> Bool {
            let h2 = scope.hash(i, 2)
            let (surname, given) = scope.customerIndices(h2)
            if customerHits[surname * OrderNames.givenNames.count + given] { return true }
            if photographerHits[scope.photographerIndex(h2)] { return true }
            return checkOrderNo && scope.orderNo(i).contains(upperKeyword)
        }
    }
}
