import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

/**
 * Keeps the JIT compilers busy on two threads for a few seconds: the workload with which
 * {@code docker/rxe-vm/stress} checks that JIT-compiled code survives the VM's CPU emulation
 * (under multi-threaded TCG, HotSpot has crashed at the entry of freshly patched methods).
 * Prints "jitstress ok" and exits 0 when it survives.
 *
 * <pre>
 * javac -d /tmp/jitstress docker/rxe-vm/JitStress.java
 * docker/rxe-vm/stress 20 java -cp /tmp/jitstress JitStress 4
 * </pre>
 */
public final class JitStress {

    private JitStress() {
    }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 4;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<Long>> results = new ArrayList<>();
        for (int seed = 0; seed < 2; seed++) {
            int threadSeed = seed;
            results.add(pool.submit(() -> work(threadSeed, seconds)));
        }
        long sum = 0;
        for (Future<Long> result : results) {
            sum += result.get();
        }
        pool.shutdown();
        System.out.println("jitstress ok " + sum);
    }

    // Collections, lambdas, streams and string building: many small methods that go through the
    // interpreter, C1 and C2, and get deoptimised and recompiled on the way.
    private static long work(int seed, long seconds) {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long acc = seed;
        Random random = new Random(seed);
        while (System.nanoTime() < end) {
            Map<String, Integer> counts = new HashMap<>();
            for (int i = 0; i < 2000; i++) {
                String key = Integer.toHexString(random.nextInt()) + i;
                counts.merge(key.substring(0, Math.min(3, key.length())), key.length(), Integer::sum);
            }
            acc += counts.values().stream().mapToLong(Integer::longValue).sum();
            acc ^= IntStream.range(0, 5000).map(x -> x * 31 + seed).filter(x -> (x & 3) == 1).count();
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < 200; i++) {
                text.append(i).append(',');
            }
            acc += text.toString().split(",").length;
        }
        return acc;
    }
}
