package asgstfuzz.stress;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A tiny class-file writer, just enough for straight-line methods (no branches, so no
 * StackMapTable is needed even at class-file version 52). Generating bytes at run time gives
 * an unbounded supply of distinct classes to load and unload.
 */
final class ClassBytes {
    static final int ACC_PUBLIC = 0x0001, ACC_STATIC = 0x0008, ACC_FINAL = 0x0010, ACC_SUPER = 0x0020;

    // The opcodes the generators in this package use.
    static final int ALOAD_0 = 0x2a, ILOAD_0 = 0x1a, ILOAD_1 = 0x1b, ICONST_2 = 0x05, LDC_W = 0x13;
    static final int IADD = 0x60, IMUL = 0x68, IXOR = 0x82, IRETURN = 0xac, ARETURN = 0xb0, RETURN = 0xb1;
    static final int INVOKESPECIAL = 0xb7, INVOKESTATIC = 0xb8;

    private final ByteArrayOutputStream pool = new ByteArrayOutputStream();
    private final DataOutputStream poolOut = new DataOutputStream(pool);
    private final Map<String, Integer> poolIndex = new HashMap<>();
    private int poolCount = 1;
    private final List<byte[]> methods = new ArrayList<>();
    private final int thisClass;
    private final int superClass;
    private final List<Integer> interfaces = new ArrayList<>();

    ClassBytes(String internalName, String superName, String... interfaceNames) {
        thisClass = classRef(internalName);
        superClass = classRef(superName);
        for (String i : interfaceNames) interfaces.add(classRef(i));
    }

    int utf8(String s) {
        return entry("U" + s, out -> { out.writeByte(1); out.writeUTF(s); });
    }

    int classRef(String internalName) {
        int name = utf8(internalName);
        return entry("C" + internalName, out -> { out.writeByte(7); out.writeShort(name); });
    }

    int integer(int v) {
        return entry("I" + v, out -> { out.writeByte(3); out.writeInt(v); });
    }

    int methodRef(String owner, String name, String desc) {
        int c = classRef(owner);
        int n = utf8(name);
        int d = utf8(desc);
        int nat = entry("N" + name + ":" + desc, out -> { out.writeByte(12); out.writeShort(n); out.writeShort(d); });
        return entry("M" + owner + "." + name + desc, out -> { out.writeByte(10); out.writeShort(c); out.writeShort(nat); });
    }

    /** Adds a method; code is raw bytecode, built with Code. */
    void method(int access, String name, String desc, int maxStack, int maxLocals, Code code) {
        int n = utf8(name);
        int d = utf8(desc);
        int codeAttr = utf8("Code");
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(b);
        byte[] bc = code.bytes.toByteArray();
        try {
            out.writeShort(access);
            out.writeShort(n);
            out.writeShort(d);
            out.writeShort(1);                   // attributes: Code
            out.writeShort(codeAttr);
            out.writeInt(12 + bc.length);
            out.writeShort(maxStack);
            out.writeShort(maxLocals);
            out.writeInt(bc.length);
            out.write(bc);
            out.writeShort(0);                   // exception table
            out.writeShort(0);                   // Code attributes
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        methods.add(b.toByteArray());
    }

    /** Adds public <init>()V calling the superclass's no-argument constructor. */
    void defaultConstructor(String superName) {
        int init = methodRef(superName, "<init>", "()V");
        method(ACC_PUBLIC, "<init>", "()V", 1, 1, new Code().op(ALOAD_0).op16(INVOKESPECIAL, init).op(RETURN));
    }

    byte[] toByteArray() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(b);
        try {
            out.writeInt(0xCAFEBABE);
            out.writeShort(0);
            out.writeShort(52);
            out.writeShort(poolCount);
            poolOut.flush();
            out.write(pool.toByteArray());
            out.writeShort(ACC_PUBLIC | ACC_FINAL | ACC_SUPER);
            out.writeShort(thisClass);
            out.writeShort(superClass);
            out.writeShort(interfaces.size());
            for (int i : interfaces) out.writeShort(i);
            out.writeShort(0);                   // fields
            out.writeShort(methods.size());
            for (byte[] m : methods) out.write(m);
            out.writeShort(0);                   // class attributes
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return b.toByteArray();
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private int entry(String key, Writer w) {
        Integer have = poolIndex.get(key);
        if (have != null) return have;
        try {
            w.write(poolOut);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int idx = poolCount++;
        poolIndex.put(key, idx);
        return idx;
    }

    /** Bytecode buffer with the two instruction shapes the generators need. */
    static final class Code {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        Code op(int opcode) {
            bytes.write(opcode);
            return this;
        }

        Code op16(int opcode, int operand) {
            bytes.write(opcode);
            bytes.write(operand >>> 8);
            bytes.write(operand & 0xff);
            return this;
        }
    }
}
