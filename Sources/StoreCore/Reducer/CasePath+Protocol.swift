extension CasePath: CasePathProtocol {
    @inlinable public func extract(from root: Root) -> Value? { extract(root) }
    @inlinable public func embed(_ value: Value) -> Root { embed(value) }
}
