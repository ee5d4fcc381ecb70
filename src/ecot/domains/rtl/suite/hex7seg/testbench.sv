module tb;
    reg  [3:0] hex;
    reg        blank;
    wire [6:0] seg;
    reg  [6:0] exp_seg;
    reg  [6:0] table_seg [0:15];
    integer errors, samples, i, seed;

    hex7seg dut (.hex(hex), .blank(blank), .seg(seg));

    initial begin
        // segment order {g,f,e,d,c,b,a}; patterns written out bit by bit
        table_seg[0]  = 7'b0111111; table_seg[1]  = 7'b0000110; table_seg[2]  = 7'b1011011;
        table_seg[3]  = 7'b1001111; table_seg[4]  = 7'b1100110; table_seg[5]  = 7'b1101101;
        table_seg[6]  = 7'b1111101; table_seg[7]  = 7'b0000111; table_seg[8]  = 7'b1111111;
        table_seg[9]  = 7'b1101111; table_seg[10] = 7'b1110111; table_seg[11] = 7'b1111100;
        table_seg[12] = 7'b0111001; table_seg[13] = 7'b1011110; table_seg[14] = 7'b1111001;
        table_seg[15] = 7'b1110001;
        errors = 0; samples = 0; seed = 3;
        for (i = 0; i < 32 + 200; i = i + 1) begin
            if (i < 32) {blank, hex} = i;
            else if (i % 4 == 0) blank = $random(seed);
            else hex = $random(seed);
            #1;
            exp_seg = blank ? 7'h00 : table_seg[hex];
            samples = samples + 1;
            if (seg !== exp_seg) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=seg expected=%h got=%h hex=%h blank=%b", $time, exp_seg, seg, hex, blank);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
