# throughput.gp: every run (boot) as a dot, mean and 95% CI per variant.
# The 2011 averages were measured on other hardware: printed, not plotted.
load "common.gp"
load datadir."/xtics.vars"
set title "Headline metric of every run (boot), mean and 95% CI\n".mode_title
set ylabel ylabel_mbps
set xlabel "kernel (2011's averages, on other hardware, printed in red: not on this scale)"
load datadir."/throughput.vars"
set xrange [0.5:nlabels + 0.5]
set offsets 0, 0, graph 0.15, graph 0.05
set key outside top center horizontal
plot datadir."/throughput_runs.dat" using 2:3:1 with points lc variable \
		pt 7 ps 0.8, \
	NaN with points lc rgb "#777777" pt 7 ps 0.8 \
		title "one run (boot), coloured by kernel", \
	datadir."/throughput_means.dat" using ($1 + 0.3):2:3:4 \
		with yerrorbars lc rgb "black" pt 13 ps 1.3 lw 1.5 \
		title "mean and 95% CI"
