"""plots/: the figures of an analysed results dir, drawn with gnuplot.

plots/draw (the command) runs plots/prepare, which writes the data files
through plots/figures/ (one module and one gnuplot script per figure),
then renders each figure's script into plots/img/. plots/ imports
analysis/ and lib/; neither imports plots/ (plots/README.md).
"""
