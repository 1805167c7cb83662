/// How one request's answer is framed, fixed when the loop read the request.
struct AnswerFraming: Sendable, Equatable {
    var omitBody: Bool
    var keepAlive: Bool
    var http10: Bool
}
