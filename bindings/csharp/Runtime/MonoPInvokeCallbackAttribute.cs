// MonoPInvokeCallbackAttribute.cs — marks a static method that native code calls back (Client's frame
// hook). Ahead-of-time compilers (Unity's IL2CPP, Mono's full AOT) find such methods by this
// attribute's name and make them callable from C; the JIT ignores it.
using System;

namespace Blendsync
{
    [AttributeUsage(AttributeTargets.Method)]
    internal sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type type) { Type = type; }
        public Type Type { get; private set; }
    }
}
