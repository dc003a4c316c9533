/*
 * Copyright 2026 The netty-rdma Project
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *   https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package org.nettyrdma.channel.rdma.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Loads the project's {@code libdisni.so} from the jar, as Netty loads its own native libraries, and
 * turns every way that can fail into a message that says what to install or change.
 *
 * <p>The jar carries one library per platform that Netty ships native transports for, under Netty's
 * classifier names: {@code META-INF/native/linux-x86_64/libdisni.so} and
 * {@code META-INF/native/linux-aarch_64/libdisni.so}; {@link #bundledPath(String, String)} picks the
 * one for the running JVM's {@code os.name} and {@code os.arch}. It is copied to a private temporary
 * file, loaded by absolute path and the file deleted again. DiSNI's own classes then call
 * {@code System.loadLibrary("disni")}, which looks only on {@code java.library.path} unless the JDK
 * finds the library linked in ("built in", JNI's static-library naming of JEP 178, marked by a
 * {@code JNI_OnLoad_disni} symbol in the process's global scope). The library exports that symbol,
 * and {@link #exportGlobally()} moves the loaded library into the global scope, so DiSNI's call
 * succeeds and its natives bind to this library. This must happen before any DiSNI class is
 * initialised; everything in the transport that touches DiSNI goes through this class first.
 *
 * <p>A class path without the bundled copy (classes run from a directory that lacks it) falls back
 * to {@code System.loadLibrary("disni")}, i.e. to {@code java.library.path}. When the bundled copy
 * exists it is always the one used, so a stale {@code libdisni.so} elsewhere cannot be picked up.
 *
 * <p>Thread-safety: {@link #ensureLoaded()} may be called from any thread; the outcome is computed
 * once.
 */
public final class NativeLibrary {

    /** The name DiSNI loads: {@code System.loadLibrary("disni")}. */
    static final String NAME = "disni";
    /** The library's file name on Linux, the only operating system it is built for. */
    static final String FILE_NAME = "lib" + NAME + ".so";
    /** Netty's classifier of the x86-64 build: its directory under {@code META-INF/native/}. */
    static final String LINUX_X86_64 = "linux-x86_64";
    /** Netty's classifier of the AArch64 build. */
    static final String LINUX_AARCH_64 = "linux-aarch_64";
    /**
     * Version of the contract between the Java side and the project's C code; the library returns
     * the same from {@link #abiVersion()}, and a disagreement means the library is stale.
     */
    static final int ABI_VERSION = 9;
    private static final String RDMA_CORE_HINT = "install rdma-core's user-space libraries, on Debian/Ubuntu: "
            + "apt-get install libibverbs1 librdmacm1 ibverbs-providers";

    private static final Throwable UNAVAILABILITY_CAUSE = load();

    private NativeLibrary() {
    }

    /**
     * Ensures the native library is loaded and fit for use.
     *
     * @throws UnsatisfiedLinkError with the reason and the fix when it is not
     */
    public static void ensureLoaded() {
        if (UNAVAILABILITY_CAUSE != null) {
            throw (Error) new UnsatisfiedLinkError(UNAVAILABILITY_CAUSE.getMessage())
                    .initCause(UNAVAILABILITY_CAUSE);
        }
    }

    /** Returns {@code true} if the native library is loaded and fit for use. */
    public static boolean isLoaded() {
        return UNAVAILABILITY_CAUSE == null;
    }

    /** Returns why the native library cannot be used, or {@code null} if it can. */
    public static Throwable unavailabilityCause() {
        return UNAVAILABILITY_CAUSE;
    }

    /**
     * Returns the class-path resource that holds the library built for a platform, as the JVM names
     * it in {@code os.name} and {@code os.arch}.
     *
     * @throws UnsupportedOperationException naming the platform, when the jar carries no build for it
     */
    static String bundledPath(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        String classifier = null;
        if (os.startsWith("linux")) {
            // OpenJDK reports amd64 and aarch64; x86_64 and arm64 are the other names in use.
            if (arch.equals("amd64") || arch.equals("x86_64")) {
                classifier = LINUX_X86_64;
            } else if (arch.equals("aarch64") || arch.equals("arm64")) {
                classifier = LINUX_AARCH_64;
            }
        }
        if (classifier == null) {
            throw new UnsupportedOperationException("netty-rdma's native library is built for Linux on x86-64 ("
                    + LINUX_X86_64 + ") and AArch64 (" + LINUX_AARCH_64 + "), not for " + osName + '/' + osArch);
        }
        return "META-INF/native/" + classifier + '/' + FILE_NAME;
    }

    private static Throwable load() {
        String bundledPath;
        try {
            bundledPath = bundledPath(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
        } catch (UnsupportedOperationException e) {
            return e;
        }
        ClassLoader loader = NativeLibrary.class.getClassLoader();
        boolean bundled = loader != null && loader.getResource(bundledPath) != null;
        String source = bundled ? bundledPath : "java.library.path";
        try {
            if (bundled) {
                loadBundled(loader, bundledPath);
            } else {
                System.loadLibrary(NAME);
            }
        } catch (UnsatisfiedLinkError e) {
            return loadFailure(source, bundledPath, bundled, e);
        } catch (IOException e) {
            return new UnsatisfiedLinkError("cannot extract " + bundledPath + " to a temporary file in "
                    + System.getProperty("java.io.tmpdir") + " (" + e + ")");
        } catch (IllegalCallerException e) {
            // JDK 24+ with --illegal-native-access=deny.
            return new UnsatisfiedLinkError("loading " + source + " was refused (" + e.getMessage()
                    + "): start the JVM with --enable-native-access=ALL-UNNAMED");
        }
        try {
            int version = abiVersion();
            if (version != ABI_VERSION) {
                return new UnsatisfiedLinkError("the libdisni.so loaded from " + source + " is netty-rdma's native"
                        + " library version " + version + " (expected: " + ABI_VERSION + "): "
                        + (bundled ? "the jar is inconsistent, rebuild it" : "replace it with the one in the jar"));
            }
        } catch (UnsatisfiedLinkError e) {
            // DiSNI's own libdisni has DiSNI's entry points but none of this project's.
            return new UnsatisfiedLinkError("the libdisni.so loaded from " + source
                    + " is not netty-rdma's build of libdisni (it lacks the project's entry points)");
        }
        if (bundled) {
            try {
                exportGlobally();
            } catch (IOException e) {
                return new UnsatisfiedLinkError("cannot make " + bundledPath + " visible to DiSNI's "
                        + "System.loadLibrary(\"disni\"): " + e.getMessage());
            }
        }
        return null;
    }

    /**
     * Copies the bundled library into a new directory only this user can enter (as
     * {@link Files#createTempDirectory} makes it on POSIX, with a name no one can predict), as a file
     * created there for the copy and never replaced, loads it and deletes both: the loaded library stays
     * mapped. No other user can put a file of theirs where it is loaded from.
     */
    private static void loadBundled(ClassLoader loader, String bundledPath) throws IOException {
        Path directory = Files.createTempDirectory("netty-rdma-native");
        Path file = directory.resolve(FILE_NAME);
        try {
            try (InputStream in = loader.getResourceAsStream(bundledPath)) {
                if (in == null) {
                    throw new IOException(bundledPath + " disappeared from the class path");
                }
                // Without REPLACE_EXISTING the copy creates the file and fails if anything is there.
                Files.copy(in, file);
            }
            System.load(file.toAbsolutePath().toString());
        } finally {
            try {
                Files.deleteIfExists(file);
            } finally {
                Files.deleteIfExists(directory);
            }
        }
    }

    private static UnsatisfiedLinkError loadFailure(String source, String bundledPath, boolean bundled,
                                                    UnsatisfiedLinkError e) {
        String message = String.valueOf(e.getMessage());
        String fix;
        if (message.contains("libibverbs") || message.contains("librdmacm")) {
            fix = RDMA_CORE_HINT;
        } else if (!bundled) {
            fix = "this class path carries no " + bundledPath + ": use the netty-transport-rdma jar, or put "
                    + "its libdisni.so on java.library.path";
        } else if (message.contains("failed to map segment")) {
            fix = System.getProperty("java.io.tmpdir") + " is mounted noexec: point -Djava.io.tmpdir at a "
                    + "directory that allows executing";
        } else {
            fix = "is this a 64-bit Linux with glibc?";
        }
        return (UnsatisfiedLinkError) new UnsatisfiedLinkError("cannot load libdisni.so from " + source + ": "
                + message + " (" + fix + ')').initCause(e);
    }

    /** Returns {@link #ABI_VERSION} as compiled into the loaded library. */
    static native int abiVersion();

    /**
     * Re-opens the loaded library with {@code RTLD_GLOBAL}, so that the JDK finds its
     * {@code JNI_OnLoad_disni} and takes {@code System.loadLibrary("disni")} as satisfied.
     */
    private static native void exportGlobally() throws IOException;
}
