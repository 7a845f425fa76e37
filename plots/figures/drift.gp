# drift.gp: run order vs throughput; dotted lines separate the rounds.
load "common.gp"
load datadir."/drift.vars"
set title "Run order vs throughput (drift); dotted lines separate rounds\n".mode_title
set xlabel "run index (order in which the boots ran)"
set ylabel ylabel_mbps
set key outside top center horizontal
plot for [i=1:nlabels] datadir.sprintf("/drift_%d.dat", i) using 1:2 \
	with linespoints lt value(sprintf("lcolor%d", i)) \
	title value(sprintf("lname%d", i))
