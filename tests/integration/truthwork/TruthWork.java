// SPDX-License-Identifier: MIT
// The truth harness's JVM workload (trace_truth.py): a service-like
// loop that counts its own calls.
//   java TruthWork N   says "ready PID", waits for a line, then N times:
//                      500 calls of one(), 200 new Node(), loop2k(),
//                      loop20k() every 20th, 2 ms asleep; then prints
//                      its counts (and the collections the JVM made
//                      meanwhile) as JSON, waits for a line and halts
// Counts are kept in fields, incremented where each call is made (no
// call of its own). Runtime.halt() ends it without shutdown hooks.
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

public class TruthWork {
    static final class Node {
        final int v;

        Node(int v) {
            this.v = v;
        }
    }

    static long one(long x) {
        return x + 1;
    }

    static long loop2k(int n) {
        long t = 0;
        for (int i = 0; i < n; i++)
            t += i;
        return t;
    }

    static long loop20k(int n) {
        long t = 0;
        for (int i = 0; i < n; i++)
            t += i;
        return t;
    }

    static long nOne, nLoop2k, nLoop20k, nNode, nRun, nCollections, sink;

    static void run(int n) throws InterruptedException {
        for (int it = 0; it < n; it++) {
            for (int i = 0; i < 500; i++) {
                sink += one(i);
                nOne++;
            }
            for (int i = 0; i < 200; i++) {
                sink += new Node(i).v;
                nNode++;
            }
            sink += loop2k(2000);
            nLoop2k++;
            if (it % 20 == 19) {
                sink += loop20k(20000);
                nLoop20k++;
            }
            Thread.sleep(2);
        }
    }

    // collections so far: {young, full} (the serial collector's Copy and
    // MarkSweepCompact)
    static long[] collections() {
        long[] out = new long[2];
        for (GarbageCollectorMXBean gc :
             ManagementFactory.getGarbageCollectorMXBeans())
            out[gc.getName().equals("Copy") ? 0 : 1] += gc.getCollectionCount();
        return out;
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        long[] gcs0 = collections();
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        System.in.read();
        long t0 = System.nanoTime();
        run(n);
        nRun++;
        long t1 = System.nanoTime();
        long[] gcs = collections();
        nCollections++;
        StringBuilder b = new StringBuilder();
        b.append("{\"one\": ").append(nOne);
        b.append(", \"loop2k\": ").append(nLoop2k);
        b.append(", \"loop20k\": ").append(nLoop20k);
        b.append(", \"Node\": ").append(nNode);
        b.append(", \"run\": ").append(nRun);
        b.append(", \"collections\": ").append(nCollections);
        b.append(", \"young_gcs\": ").append(gcs[0] - gcs0[0]);
        b.append(", \"full_gcs\": ").append(gcs[1] - gcs0[1]);
        b.append(", \"elapsed_ms\": ").append((t1 - t0) / 1000000);
        b.append("}");
        System.out.println(b);
        System.out.flush();
        System.in.read();
        Runtime.getRuntime().halt(0);
    }
}
