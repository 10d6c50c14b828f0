from gpulint.cli.entry import main

main()
