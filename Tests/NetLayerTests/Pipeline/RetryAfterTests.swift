import Foundation
import Testing

@testable import NetLayer

@Suite("Retry-After: seconds and HTTP-dates")
struct RetryAfterTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, the example of RFC 9110 §5.6.7.
    let now = Date(timeIntervalSince1970: 784_111_777)

    @Test func delaySecondsAreReadAsSeconds() {
        #expect(RetryAfter.delay("120", now: now) == .seconds(120))
        #expect(RetryAfter.delay(" 0 ", now: now) == .zero)
    }

    @Test func theThreeHTTPDateFormsAreRead() {
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:50:37 GMT", now: now) == .seconds(60))
        #expect(RetryAfter.delay("Sunday, 06-Nov-94 08:50:37 GMT", now: now) == .seconds(60))
        #expect(RetryAfter.delay("Sun Nov  6 08:50:37 1994", now: now) == .seconds(60))
    }

    @Test func aDateInThePastIsNoWaitAndAbsurdValuesAreClamped() {
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == .zero)
        #expect(RetryAfter.delay(String(repeating: "9", count: 40), now: now) == Timeouts.maximum)
        #expect(RetryAfter.delay("Fri, 31 Dec 9999 23:59:59 GMT", now: now) == Timeouts.maximum)
    }

    @Test func malformedValuesAreIgnored() {
        for value in [nil, "", "-5", "1.5", "soon", "120s", "Sun, 06 Nov 1994"] as [String?] {
            #expect(RetryAfter.delay(value, now: now) == nil, "\(String(describing: value))")
        }
    }
}

extension RetryAfterTests {
    @Test(.tags(.hardening)) func numbersAServerSendsAreClampedBeforeTheyReachATimer() throws {
        #expect(RetryAfter.delay(String(repeating: "9", count: 40)) == Timeouts.maximum)
        #expect(RetryAfter.delay("-5") == nil)
        #expect(try #require(RetryAfter.delay("Fri, 31 Dec 9999 23:59:59 GMT")) <= Timeouts.maximum)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT") == .zero)
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        try parser.consume(
            Data("retry: \(String(repeating: "9", count: 40))\nid: a\u{0}b\ndata: x\n\n".utf8)
        ) {
            events.append($0)
        }
        #expect(parser.reconnectionTime == Timeouts.maximum)
        #expect(parser.lastEventID.isEmpty)
        #expect(events.map(\.data) == ["x"])
        #expect(
            EventStreamReconnection(maximumDelay: .seconds(Int64.max)).wait(.seconds(Int64.max))
                == Timeouts.maximum)
    }
}
