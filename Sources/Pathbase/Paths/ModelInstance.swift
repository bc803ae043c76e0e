/// One instance of one model — a path without its property: the key of what is kept per
/// instance (observers, SQLite's instance bodies).
package struct ModelInstance: Hashable, Sendable {
    package let model: ModelKey
    package let instance: InstanceKey

    package init(model: ModelKey, instance: InstanceKey) {
        self.model = model
        self.instance = instance
    }
}
