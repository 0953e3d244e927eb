import Foundation
import NetLayer
import NetLayerObservability
import Testing

@Suite("The conventions' names and values")
struct ConventionsTests {
    @Test func errorTypes() {
        #expect(HTTPClientConventions.errorType(statusCode: 200, errorCode: nil) == nil)
        #expect(HTTPClientConventions.errorType(statusCode: 302, errorCode: nil) == nil)
        #expect(HTTPClientConventions.errorType(statusCode: 404, errorCode: nil) == "404")
        #expect(HTTPClientConventions.errorType(statusCode: 500, errorCode: nil) == "500")
        #expect(HTTPClientConventions.errorType(statusCode: nil, errorCode: .timedOut) == "timedOut")
        #expect(HTTPClientConventions.errorType(statusCode: 200, errorCode: .transport) == "transport")
        #expect(HTTPClientConventions.callErrorType(statusCode: 404, errorCode: nil) == nil)
        #expect(HTTPClientConventions.callErrorType(statusCode: 404, errorCode: .unacceptableStatus) == "404")
        #expect(
            HTTPClientConventions.callErrorType(statusCode: nil, errorCode: .unacceptableStatus)
                == "unacceptableStatus")
        #expect(HTTPClientConventions.callErrorType(statusCode: 200, errorCode: .cancelled) == "cancelled")
    }

    @Test func theBucketAdvice() {
        #expect(
            HTTPClientConventions.requestDurationBucketSeconds == [
                0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
            ])
        #expect(HTTPClientConventions.requestDurationBuckets.first == .milliseconds(5))
        #expect(HTTPClientConventions.requestDurationBuckets.last == .seconds(10))
        #expect(HTTPClientConventions.requestDurationBuckets.count == 14)
    }

    @Test func theKnownMethods() {
        #expect(
            HTTPClientConventions.standardMethods == [
                "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE",
            ])
        if ProcessInfo.processInfo.environment[HTTPClientConventions.knownMethodsVariable] == nil {
            #expect(HTTPClientConventions.defaultKnownMethods == HTTPClientConventions.standardMethods)
        }
    }
}
