from gpulint.cli.main import main

main()
