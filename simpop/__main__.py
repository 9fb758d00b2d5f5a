from simpop.cli import main

main()
