package asgstfuzz.stress;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Defines its own copy of every class whose name starts with a prefix (child first), from the
 * same bytes the application loader uses. Each copy is a brand-new class: no profile, no
 * compiled code, fresh dependencies, and it can be unloaded once the loader is dropped.
 */
final class IsolatingLoader extends ClassLoader {
    private static final ConcurrentHashMap<String, byte[]> BYTES = new ConcurrentHashMap<>();
    private final String prefix;

    IsolatingLoader(String prefix) {
        super(IsolatingLoader.class.getClassLoader());
        this.prefix = prefix;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.startsWith(prefix)) return super.loadClass(name, resolve);
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                byte[] b = bytesOf(name);
                c = defineClass(name, b, 0, b.length);
            }
            if (resolve) resolveClass(c);
            return c;
        }
    }

    private static byte[] bytesOf(String name) throws ClassNotFoundException {
        byte[] b = BYTES.get(name);
        if (b != null) return b;
        String res = name.replace('.', '/') + ".class";
        try (InputStream in = IsolatingLoader.class.getClassLoader().getResourceAsStream(res)) {
            if (in == null) throw new ClassNotFoundException(name);
            b = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + res, e);
        }
        BYTES.putIfAbsent(name, b);
        return b;
    }
}
