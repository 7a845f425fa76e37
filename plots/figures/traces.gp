# traces.gp: tbench's per-second running average of every run, per variant.
load "common.gp"
load datadir."/traces.vars"
set title "Per-second throughput of every run (tbench's running average)\n".mode_title
set xlabel "second of the tbench run"
set ylabel ylabel_trace
set key outside top center horizontal
if (warmup_end > 0) {
	set object 1 rect from graph 0, graph 0 to first warmup_end, graph 1 \
		fc rgb "#eeeeee" fs solid noborder behind
	set label 1 "warm-up" at first warmup_end / 2.0, graph 0.96 center
}
plot for [i=1:nlabels] datadir.sprintf("/trace_%d.dat", i) using 1:2 \
	with lines lt value(sprintf("lcolor%d", i)) lw 1 \
	title value(sprintf("lname%d", i))
