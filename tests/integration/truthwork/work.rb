# SPDX-License-Identifier: MIT
# The truth harness's Ruby workload (trace_truth.py, -P ruby): "ready
# PID", then after a line on stdin, N times: 500 Foo.new, a Bar.new
# every 10th, an ArgumentError raised and rescued every 100th, 2 ms
# asleep. Then its counts and the collections Ruby made meanwhile
# (GC.stat) as JSON and, after another line, exit! (no at_exit).
class Foo; end
class Bar; end
STDOUT.sync = true
n = ARGV[0].to_i
puts "ready #{Process.pid}"
STDIN.gets
gc0 = GC.stat
t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
nfoo = nbar = nraise = 0
i = 0
while i < n
  j = 0
  while j < 500
    Foo.new
    nfoo += 1
    j += 1
  end
  if i % 10 == 0
    Bar.new
    nbar += 1
  end
  if i % 100 == 99
    begin
      raise ArgumentError, "truth"
    rescue ArgumentError
      nraise += 1
    end
  end
  sleep 0.002
  i += 1
end
t1 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
gc1 = GC.stat
puts "{\"Foo\": #{nfoo}, \"Bar\": #{nbar}, \"raised\": #{nraise}, \"gcs\": #{gc1[:count] - gc0[:count]}, \"minor\": #{gc1[:minor_gc_count] - gc0[:minor_gc_count]}, \"major\": #{gc1[:major_gc_count] - gc0[:major_gc_count]}, \"elapsed_s\": #{t1 - t0}}"
STDIN.gets
exit!(0)
