# modelled.gp: modelled cycles per tbench operation of each kernel, stacked
# by source (instructions, then penalty x events of each model event).
# A model's figures (bench/run --model), not a measurement of any CPU.
# The key sits below the bars in two rows (it names each source by its
# event and penalty); with many kernels their names are slanted.
load "common.gp"
load datadir."/modelled.vars"
set title "Modelled cycles per tbench operation, by source (a model, not hardware)\n".mode_title
set ylabel "modelled cycles / op"
set xlabel "kernel"
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.6
set key below center horizontal Left reverse maxrows 2 width 2 samplen 2 \
	spacing 1.2
set yrange [0:*]
set xrange [-0.6:nbars - 0.4]
set xtics nomirror offset 0,-0.3
if (nbars > 4) set xtics rotate by -30
# colours of the sources (not of variants: every bar is one kernel)
colors = "#4c72b0 #dd8452 #55a868 #c44e52 #8172b3 #937860 #da8bc3"
plot for [i=2:nparts + 1] datadir."/modelled.dat" using i:xtic(1) \
	lc rgb word(colors, i - 1) title value(sprintf("part%d", i - 1))
